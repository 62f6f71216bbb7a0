import type { PaymentView } from "@/lib/client/chat-types";
import { hostOf } from "@/lib/client/format";
import { useNetwork } from "@/lib/client/network-context";
import { networkName } from "./network-name";

export function DiscoveryCard({ view }: { view: PaymentView }) {
  const network = useNetwork();
  const services = view.details.services ?? [];
  const searching = view.status === "discovering";
  return (
    <section className="discovery-card" data-testid="discovery-card" data-status={view.status} aria-label="Service discovery">
      <header className="card-header">
        <span className="card-title">
          {searching ? "Searching for paid services…" : `Found ${services.length} paid service${services.length === 1 ? "" : "s"}`}
        </span>
        {searching ? <span className="spinner" aria-hidden="true" /> : null}
      </header>
      {view.details.message ? <p className="card-message">{view.details.message}</p> : null}
      {services.length > 0 ? (
        <ul className="service-list">
          {services.map((service, index) => (
            <li key={`${service.resource}-${index}`} className="service-list__item" data-testid="discovered-service">
              <div className="service-list__head">
                <span className="service-list__name">{service.name}</span>
                {service.price ? <span className="service-list__price">{service.price} USDC</span> : null}
              </div>
              {service.description ? <p className="service-list__description">{service.description}</p> : null}
              {service.usage ? (
                <p className="service-list__usage" data-testid="service-usage">
                  <code>{service.usage}</code>
                </p>
              ) : null}
              <p className="service-list__meta">
                {hostOf(service.resource)}
                {service.network ? ` · ${networkName(service.network, network)}` : ""}
                {service.x402Version ? ` · x402 v${service.x402Version}` : ""}
              </p>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
