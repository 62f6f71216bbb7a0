/**
 * The "quoted" step of a purchase: the fields every later event of the payment carries (what,
 * to whom, from which wallet) and the event that shows the frozen quote, with what deserves a
 * second look (a payee this wallet never paid, a listing that said another price, an upfront
 * settlement).
 */
import type { PaymentScheme } from "./schemes/payment-scheme";
import type { Quote } from "./purchase-types";

export function quotedStep(input: { quote: Quote; scheme: PaymentScheme; amount: string; newPayee: boolean; listingNote: string }) {
  const { quote, scheme, amount, newPayee } = input;
  const { option } = quote;
  const quoted = {
    service: quote.service,
    resource: quote.url,
    amount,
    ...scheme.words.quoteFields(amount),
    asset: option.asset,
    network: option.network,
    payTo: option.payTo,
    payer: quote.payer,
    ...(newPayee ? { newPayee } : {}),
  };
  const firstNote = newPayee ? "; this wallet has never paid this payee before" : "";
  // An upfront offer settles before the service works: a failure then is money already gone, so the quote says it.
  const upfrontNote = option.upfront ? "; paid up front: it settles before the service does the work" : "";
  const quotedEvent = {
    id: quote.id,
    status: "quoted" as const,
    ...quoted,
    message: `${quote.service} asks ${scheme.words.asks(amount)}${input.listingNote}${firstNote}${upfrontNote}.`,
  };
  return { quoted, quotedEvent };
}
