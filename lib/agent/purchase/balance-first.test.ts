import { describe, expect, it } from "vitest";
import { payerBalance, rememberChosenOption } from "./balance-first";

/** A balance read that counts how often it was started. */
function counted() {
  const reads = { count: 0 };
  const read = () => {
    reads.count += 1;
    return Promise.resolve(5n);
  };
  return { reads, read };
}

describe("reading the payer's balance beside the unpaid request", () => {
  it("reads at once for a URL not known to pay through a channel, and only once", async () => {
    const { reads, read } = counted();
    const balance = payerBalance(read, "http://127.0.0.1:1/weather?city=Lisbon");
    expect(reads.count).toBe(1);
    expect(await balance()).toBe(5n);
    expect(await balance()).toBe(5n);
    expect(reads.count).toBe(1);
  });

  it("waits until asked where the URL's last purchase chose a channel, whatever its query; an offer from the wallet again reads at once", async () => {
    rememberChosenOption("http://127.0.0.1:2/ticks?symbol=BTC", true);
    const first = counted();
    const balance = payerBalance(first.read, "http://127.0.0.1:2/ticks?symbol=ETH");
    expect(first.reads.count).toBe(0);
    // Asked for (the service now offers a payment from the wallet): read then.
    expect(await balance()).toBe(5n);
    expect(first.reads.count).toBe(1);

    // Another path of the same origin is another URL.
    const other = counted();
    payerBalance(other.read, "http://127.0.0.1:2/quotes");
    expect(other.reads.count).toBe(1);

    rememberChosenOption("http://127.0.0.1:2/ticks?symbol=BTC", false);
    const again = counted();
    payerBalance(again.read, "http://127.0.0.1:2/ticks?symbol=BTC");
    expect(again.reads.count).toBe(1);
  });

  it("a read that fails is reported when asked for, not as an unhandled rejection when never asked", async () => {
    rememberChosenOption("http://127.0.0.1:3/a", false);
    const balance = payerBalance(() => Promise.reject(new Error("rpc down")), "http://127.0.0.1:3/a");
    await expect(balance()).rejects.toThrow("rpc down");
    payerBalance(() => Promise.reject(new Error("never asked")), "http://127.0.0.1:3/b");
  });
});
