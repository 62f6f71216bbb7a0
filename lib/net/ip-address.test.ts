import { describe, expect, it } from "vitest";
import { formatIpAddress, parseIpAddress } from "./ip-address";

const format = (text: string) => {
  const parsed = parseIpAddress(text);
  if (!parsed) throw new Error(`not an address: ${text}`);
  return formatIpAddress(parsed);
};

describe("formatIpAddress", () => {
  it("writes IPv6 as RFC 5952 does: lower case, no leading zeros, the longest zero run as ::", () => {
    expect(format("2001:0DB8:0000:0000:0000:0000:0000:0001")).toBe("2001:db8::1");
    expect(format("2001:db8::1")).toBe("2001:db8::1");
    expect(format("2001:db8:0:0:0:0:2:1")).toBe("2001:db8::2:1");
    // Of two runs the longer, and of equal runs the first.
    expect(format("2001:0:0:1:0:0:0:1")).toBe("2001:0:0:1::1");
    expect(format("2001:db8:0:0:1:0:0:1")).toBe("2001:db8::1:0:0:1");
    // A single zero group is not compressed.
    expect(format("2001:db8:0:1:1:1:1:1")).toBe("2001:db8:0:1:1:1:1:1");
    expect(format("::")).toBe("::");
    expect(format("::1")).toBe("::1");
    expect(format("1::")).toBe("1::");
    expect(format("[FE80::0001]")).toBe("fe80::1");
    expect(format("::ffff:1.2.3.4")).toBe("::ffff:102:304");
  });

  it("writes IPv4 as a dotted quad", () => {
    expect(format("198.51.100.7")).toBe("198.51.100.7");
  });
});
