import { describe, expect, it } from "vitest";
import { rankBySearch, searchScore, searchWords, type SearchableFields } from "./search-ranking";

const items: (SearchableFields & { id: string })[] = [
  {
    id: "news",
    names: ["news-headlines", "Devnet News"],
    tags: ["news", "headlines"],
    path: "/news",
    description: "Headlines on a topic, including the weather.",
  },
  { id: "weather", names: ["weather", "Devnet Weather"], tags: ["weather", "forecast"], path: "/weather", description: "Forecast for a city." },
  { id: "prices", names: ["crypto-price"], tags: ["crypto", "price", "bitcoin"], path: "/crypto/price", description: "Spot prices." },
];

describe("searchWords", () => {
  it("lower-cases, drops stop words and trims plurals", () => {
    expect(searchWords("Find me the latest Headlines about Bitcoin prices!")).toEqual(["latest", "headline", "bitcoin", "price"]);
  });
});

describe("rankBySearch", () => {
  it("puts a name or tag match ahead of a mention in a description", () => {
    expect(rankBySearch("weather", items, (item) => item).map((item) => item.id)).toEqual(["weather", "news"]);
  });

  it("adds up several matching words", () => {
    expect(rankBySearch("bitcoin price today", items, (item) => item)[0]?.id).toBe("prices");
  });

  it("counts a word that starts a field word for less", () => {
    const fields = items[1] as SearchableFields;
    expect(searchScore("weath", fields)).toBeGreaterThan(0);
    expect(searchScore("weath", fields)).toBeLessThan(searchScore("weather", fields));
  });

  it("returns nothing for a query that matches nothing, or only stop words", () => {
    expect(rankBySearch("submarine", items, (item) => item)).toEqual([]);
    expect(rankBySearch("the of and", items, (item) => item)).toEqual([]);
  });
});
