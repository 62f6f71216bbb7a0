"use client";

import { useQuery } from "@tanstack/react-query";
import { fetchSuggestions } from "@/lib/client/suggestions";

/**
 * Example requests built from what discovery lists on this network, with their prices; a click
 * fills the composer (nothing is sent until the person sends it). None while loading or when
 * discovery is unavailable.
 */
export function Suggestions({ onPick }: { onPick: (text: string) => void }) {
  const { data } = useQuery({ queryKey: ["suggestions"], queryFn: ({ signal }) => fetchSuggestions(signal), staleTime: 60_000, retry: false });
  if (!data || data.length === 0) return null;
  return (
    <ul className="empty__examples" data-testid="suggestions" aria-label="Example requests">
      {data.map((suggestion) => (
        <li key={suggestion.text}>
          <button
            type="button"
            className="chip chip--suggestion"
            data-testid="suggestion"
            data-price={suggestion.price}
            onClick={() => onPick(suggestion.text)}
          >
            {suggestion.text} <span className="chip__price">{suggestion.price} USDC</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
