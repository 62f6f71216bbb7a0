import { isIP } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cidrContains, parseCidr, parseIpAddress, unmapIpv4 } from "./ip-address";
import { isPublicAddress } from "./public-address";

describe("parseIpAddress", () => {
  it("parses canonical IPv4 and IPv6 literals", () => {
    expect(Array.from(parseIpAddress("10.1.2.3")?.bytes ?? [])).toEqual([10, 1, 2, 3]);
    expect(parseIpAddress("::1")?.bytes.at(15)).toBe(1);
    expect(parseIpAddress("[::1]")?.version).toBe(6);
    expect(Array.from(parseIpAddress("::ffff:1.2.3.4")?.bytes ?? []).slice(10)).toEqual([0xff, 0xff, 1, 2, 3, 4]);
    expect(parseIpAddress("fe80::1%eth0")?.version).toBe(6);
    expect(parseIpAddress("1:2:3:4:5:6:7:8")?.bytes.at(15)).toBe(8);
  });

  it.each([
    "127.1",
    "2130706433",
    "0177.0.0.1",
    "0x7f.0.0.1",
    "01.2.3.4",
    "256.1.1.1",
    "1.2.3",
    "",
    "::1::",
    ":::",
    "1:2:3:4:5:6:7:8:9",
    "1.2.3.4::",
    "g::1",
    "localhost",
  ])("refuses %j", (text) => {
    expect(parseIpAddress(text)).toBeUndefined();
  });

  it("agrees with node:net on which strings are IPv6 addresses", () => {
    fc.assert(
      fc.property(fc.ipV6(), (text) => {
        expect(parseIpAddress(text)?.version).toBe(6);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f:.]{0,20}$/), (text) => {
        const ours = parseIpAddress(text) !== undefined;
        // Node accepts leading-zero IPv4 parts inside IPv6 in some versions; we are stricter only.
        if (ours) expect(isIP(text)).not.toBe(0);
      }),
    );
  });

  it("unmaps IPv4-mapped IPv6", () => {
    const address = unmapIpv4(parseIpAddress("::ffff:127.0.0.1")!);
    expect(address.version).toBe(4);
    expect(Array.from(address.bytes)).toEqual([127, 0, 0, 1]);
  });

  it("matches CIDR ranges", () => {
    expect(cidrContains(parseCidr("172.16.0.0/12")!, parseIpAddress("172.31.255.255")!)).toBe(true);
    expect(cidrContains(parseCidr("172.16.0.0/12")!, parseIpAddress("172.32.0.0")!)).toBe(false);
    expect(cidrContains(parseCidr("0.0.0.0/0")!, parseIpAddress("8.8.8.8")!)).toBe(true);
    expect(cidrContains(parseCidr("0.0.0.0/0")!, parseIpAddress("::1")!)).toBe(false);
    expect(parseCidr("10.0.0.0/33")).toBeUndefined();
    expect(parseCidr("10.0.0.0")).toBeUndefined();
  });
});

describe("isPublicAddress", () => {
  it.each([
    "0.0.0.0",
    "0.1.2.3",
    "10.0.0.1",
    "10.255.255.255",
    "100.64.0.1",
    "100.127.255.255",
    "127.0.0.1",
    "127.255.255.254",
    "169.254.169.254",
    "169.254.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.0.0.8",
    "192.0.2.1",
    "192.88.99.1",
    "192.168.1.1",
    "198.18.0.1",
    "198.51.100.1",
    "203.0.113.1",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "::127.0.0.1",
    "64:ff9b::10.0.0.1",
    "64:ff9b::7f00:1",
    "64:ff9b:1::1",
    "2002:7f00:1::1",
    "2002:a00:1::",
    "2001::1",
    "2001:db8::1",
    "3fff::1",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "fe80::1%eth0",
    "febf::1",
    "fec0::1",
    "ff02::1",
    "ff05::2",
    "100::1",
    "::ffff:0:7f00:1",
    "127.1",
    "2130706433",
    "0x7f000001",
    "not an address",
    "",
  ])("refuses %s", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "93.184.216.34",
    "100.63.255.255",
    "100.128.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.0.1.1",
    "192.169.0.1",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ])("accepts %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});
