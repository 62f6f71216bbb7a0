/**
 * A world that is not ours: paid services built only from the x402 packages and the specs,
 * and a discovery server (foreign-bazaar.ts) that answers exactly the bazaar spec's shapes.
 * Three real-world service shapes:
 * - `translate`: x402 v2 `POST` with a JSON body, declared with the bazaar extension
 *   (foreign-translate-service.ts);
 * - `quote`: x402 v2 `GET` with a path parameter and an optional query parameter, declared
 *   with the bazaar extension's path parameters and listed by its route template
 *   (foreign-quote-service.ts);
 * - `convert`: x402 v1 `POST` described only by its requirement's `outputSchema`
 *   (`bodyType`, `bodyFields`), paid with `X-PAYMENT` (foreign-v1-service.ts).
 * Each is listed as a facilitator would list it from its own 402. Payments settle through the
 * local world's facilitator on its chain, so the chain can show what moved. Used to show the
 * agent works against the specs, not against our own devnet's habits. Loopback only, ports
 * chosen by the system.
 */
import type { Devnet } from "../../devnet";
import { startForeignBazaar } from "./foreign-bazaar";
import type { ForeignService } from "./foreign-http";
import { startQuoteService } from "./foreign-quote-service";
import { startTranslateService } from "./foreign-translate-service";
import { startV1ConvertService } from "./foreign-v1-service";

export { TRANSLATE_PRICE } from "./foreign-translate-service";
export { QUOTE_PRICE } from "./foreign-quote-service";
export { CONVERT_PRICE } from "./foreign-v1-service";
export type { ForeignService, SeenRequest, ServedRequest } from "./foreign-http";

/** A distinct payee per service, so each payee's balance shows exactly what its service was paid. */
export type ForeignPayees = { translate: `0x${string}`; quote: `0x${string}`; convert: `0x${string}` };

export type ForeignWorld = {
  /** Where the discovery server answers (`/discovery/resources`, `/discovery/search`). */
  bazaarUrl: string;
  translate: ForeignService;
  quote: ForeignService;
  convert: ForeignService;
  /** Every host the app must be allowed to reach. */
  hosts: string[];
  /** Forgets what the services have seen so far. */
  forget(): void;
  stop(): Promise<void>;
};

export async function startForeignWorld(devnet: Devnet, payees: ForeignPayees): Promise<ForeignWorld> {
  const stops: (() => Promise<void>)[] = [];
  const stopAll = () => Promise.all(stops.splice(0).map((stop) => stop().catch(() => undefined))).then(() => undefined);
  try {
    const translate = await startTranslateService(devnet, payees.translate);
    stops.push(translate.service.stop);
    const quote = await startQuoteService(devnet, payees.quote);
    stops.push(quote.service.stop);
    const convert = await startV1ConvertService(devnet, payees.convert);
    stops.push(convert.service.stop);
    const bazaar = await startForeignBazaar([translate.listing, quote.listing, convert.listing]);
    stops.push(bazaar.stop);
    const services = [translate.service, quote.service, convert.service];
    return {
      bazaarUrl: bazaar.url,
      translate: translate.service,
      quote: quote.service,
      convert: convert.service,
      hosts: [new URL(bazaar.url).host, ...services.map((service) => service.host)],
      forget() {
        for (const service of services) {
          service.requests.length = 0;
          service.served.length = 0;
        }
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
