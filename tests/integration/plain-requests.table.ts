/**
 * Plain requests a newcomer might type, in varied wording, each with the local-world service
 * it should reach (by the service's name in devnet/services/service-catalog.ts) or NOTHING
 * when no listed service does what it asks. Every group of the local world is covered: GET
 * with a query, a POST body, a path parameter, the sign-in-with-x service, the guide
 * catalogue, the service whose 402 offers another network first, the one only another
 * network can pay (hidden by discovery, so nothing fits), the offline one, the paid MCP tools
 * (expected as `mcp:<tool>`), and requests phrased as suggestions are: a listing's description
 * or name, then its example inputs.
 */
export const NOTHING = "nothing fits";

export type PlainRequest = {
  request: string;
  expected: string;
  /** The group of the local world the row exercises, for the report. */
  group: "query" | "body" | "path" | "sign-in" | "guides" | "foreign-first" | "foreign-only" | "offline" | "mcp" | "suggestion" | "nothing";
  /** Values the call must carry (in its URL or body), when the request names them. */
  carries?: string[];
};

export const PLAIN_REQUESTS: readonly PlainRequest[] = [
  // GET with a query string.
  { group: "query", request: "What's the weather in Lisbon?", expected: "weather", carries: ["Lisbon"] },
  { group: "query", request: "Is it going to rain in Porto tomorrow?", expected: "weather", carries: ["Porto"] },
  { group: "query", request: "temperature in new york today", expected: "weather", carries: ["New York"] },
  { group: "query", request: "How much is bitcoin right now?", expected: "crypto-price", carries: ["BTC"] },
  { group: "query", request: "What's the current price of ETH?", expected: "crypto-price", carries: ["ETH"] },
  { group: "query", request: "Get today's headlines about renewable energy", expected: "news-headlines", carries: ["renewable energy"] },
  { group: "query", request: "Any news on electric cars?", expected: "news-headlines", carries: ["electric cars"] },
  { group: "query", request: "Show me EUR exchange rates", expected: "fx-rates", carries: ["EUR"] },
  { group: "query", request: "What is the dollar worth in other currencies?", expected: "fx-rates", carries: ["USD"] },
  { group: "query", request: "Run a sentiment analysis of ethereum", expected: "slow-analysis", carries: ["ethereum"] },
  { group: "query", request: "I'd like an in-depth research report on electric vehicles", expected: "premium-report", carries: ["electric vehicles"] },
  { group: "query", request: "Do I need an umbrella in Warsaw?", expected: "weather", carries: ["Warsaw"] },
  { group: "query", request: "Weather Tokyo", expected: "weather", carries: ["Tokyo"] },
  { group: "query", request: "Price of dogecoin", expected: "crypto-price", carries: ["DOGE"] },
  { group: "query", request: "bitcoin news", expected: "news-headlines", carries: ["bitcoin"] },
  { group: "query", request: "bitcoin sentiment", expected: "slow-analysis", carries: ["bitcoin"] },
  { group: "query", request: "exchange rate for the Swiss franc", expected: "fx-rates", carries: ["CHF"] },
  // Coins named as words, and a field with a fixed set of values (a dataset: sales or stations).
  { group: "query", request: "What's the price of one Solana?", expected: "crypto-price", carries: ["symbol=SOL"] },
  { group: "query", request: "price of ethereum", expected: "crypto-price", carries: ["symbol=ETH"] },
  { group: "query", request: "What does one ether cost today?", expected: "crypto-price", carries: ["symbol=ETH"] },
  { group: "query", request: "Get 20 rows of the weather station dataset", expected: "row-meter", carries: ["rows=20", "dataset=stations"] },
  { group: "query", request: "I need 30 rows of sales data", expected: "row-meter", carries: ["rows=30", "dataset=sales"] },
  // POST with a JSON body.
  {
    group: "body",
    request: "Extract the keywords from this: Solar panels are getting cheaper every year and wind farms keep growing.",
    expected: "keywords",
    carries: ["Solar panels are getting cheaper"],
  },
  {
    group: "body",
    request: 'Pull out the main keywords of "The museum reopened after its renovation, and the museum cafe drew crowds."',
    expected: "keywords",
    carries: ["museum reopened"],
  },
  {
    group: "body",
    request: "Give me 3 keywords for this text: Cheap solar power changes how cities plan their grids.",
    expected: "keywords",
    carries: ["Cheap solar power", "3"],
  },
  {
    group: "body",
    request: "Which keywords stand out in: 'Trains were late, buses were full, and bikes sold out.'",
    expected: "keywords",
    carries: ["Trains were late"],
  },
  // A path parameter.
  { group: "path", request: "What's the stock quote for ACME?", expected: "stock-quote", carries: ["ACME"] },
  { group: "path", request: "How are NVDA shares trading today?", expected: "stock-quote", carries: ["NVDA"] },
  { group: "path", request: "Get me a quote for the ticker MSFT", expected: "stock-quote", carries: ["MSFT"] },
  { group: "path", request: "AAPL quote", expected: "stock-quote", carries: ["AAPL"] },
  // The sign-in-with-x service.
  { group: "sign-in", request: "Get archive document doc-7", expected: "archive", carries: ["doc-7"] },
  { group: "sign-in", request: "Show me the scanned document doc-12 from the archive", expected: "archive", carries: ["doc-12"] },
  { group: "sign-in", request: "Pull up document 3 from the records", expected: "archive", carries: ["doc-3"] },
  // One guide out of the catalogue of 112.
  { group: "guides", request: "What are the best museums in Lisbon for a 2 day trip?", expected: "guide-lisbon-museums", carries: ["days=2"] },
  { group: "guides", request: "Food recommendations for Osaka", expected: "guide-osaka-food" },
  { group: "guides", request: "Parks to visit in Vienna over a weekend", expected: "guide-vienna-parks" },
  { group: "guides", request: "How do I get around Berlin by public transit for 3 days?", expected: "guide-berlin-transit", carries: ["days=3"] },
  { group: "guides", request: "Buy the food guide for Lisbon", expected: "guide-lisbon-food" },
  { group: "guides", request: "museum guide for seoul, one week", expected: "guide-seoul-museums", carries: ["days=7"] },
  { group: "guides", request: "I'm visiting Hanoi for 4 days, where can I find good food?", expected: "guide-hanoi-food", carries: ["days=4"] },
  { group: "guides", request: "Getting around Lima: transit tips for a short visit", expected: "guide-lima-transit" },
  // The 402 offers another network first: paid in the local USDC.
  { group: "foreign-first", request: "How polluted is the air in Delhi?", expected: "air-quality", carries: ["Delhi"] },
  { group: "foreign-first", request: "Check the air quality index for Krakow", expected: "air-quality", carries: ["Krakow"] },
  { group: "foreign-first", request: "AQI in Nairobi", expected: "air-quality", carries: ["Nairobi"] },
  // Only another network can pay it: discovery leaves it out, so nothing fits.
  { group: "foreign-only", request: "What does the mainnet oracle say for ETH-USD?", expected: NOTHING },
  // Listed, but its server is down: called, and the answer says it is offline.
  { group: "offline", request: "Translate 'Thank you' into French", expected: "translate", carries: ["Thank you", "fr"] },
  { group: "offline", request: "Can you translate good morning to Portuguese?", expected: "translate", carries: ["pt"] },
  // A paid MCP tool (the local world's MCP server, listed in the Bazaar as type "mcp"): named `mcp:<tool>`.
  {
    group: "mcp",
    request: "Summarize this: The council met on Tuesday and agreed to extend the tram line to the airport by 2030.",
    expected: "mcp:summarize",
    carries: ["The council met on Tuesday"],
  },
  {
    group: "mcp",
    request: "Summarize the following text: 'Rain is expected all week, with storms on Friday.'",
    expected: "mcp:summarize",
    carries: ["Rain is expected all week"],
  },
  { group: "mcp", request: "Use the MCP translate tool: 'good morning' into Spanish", expected: "mcp:translate", carries: ["good morning", "es"] },
  // A listing's description, then an example input.
  {
    group: "suggestion",
    request: "Current weather and a three-day forecast for a city (synthetic demo data) for Lisbon",
    expected: "weather",
    carries: ["Lisbon"],
  },
  { group: "suggestion", request: "Delayed stock quote for a ticker, named in the path for ACME", expected: "stock-quote", carries: ["ACME"] },
  {
    group: "suggestion",
    request: "Extracts the main keywords of a text sent as a JSON body for Solar and wind power lead the energy transition",
    expected: "keywords",
    carries: ["Solar and wind power"],
  },
  { group: "suggestion", request: "A scanned document from the archive, by id for doc-1", expected: "archive", carries: ["doc-1"] },
  {
    group: "suggestion",
    request: "Three picks for parks in Porto, for a stay of a few days (synthetic demo data) for 2",
    expected: "guide-porto-parks",
    carries: ["days=2"],
  },
  { group: "suggestion", request: "Foreign exchange rates against a base currency such as EUR or USD for GBP", expected: "fx-rates", carries: ["GBP"] },
  {
    group: "suggestion",
    request: "Three picks for food in Lisbon, for a stay of a few days (synthetic demo data). for 2",
    expected: "guide-lisbon-food",
    carries: ["days=2"],
  },
  {
    group: "suggestion",
    request: 'Extracts the main keywords of a text sent as a JSON body (synthetic demo service). for "Solar and wind power lead the energy transition"',
    expected: "keywords",
    carries: ["Solar and wind power"],
  },
  {
    group: "suggestion",
    request: "Deep market sentiment analysis for a topic; thorough, so it takes a while to answer for ethereum",
    expected: "slow-analysis",
    carries: ["ethereum"],
  },
  // As the empty page words its suggestions: “Buy <listing name> for <example>” or “… with <input> <example> and …”.
  { group: "suggestion", request: "Buy Devnet Weather for Lisbon", expected: "weather", carries: ["Lisbon"] },
  {
    group: "suggestion",
    request: "Buy Devnet Keyword Extractor with text Solar and wind power lead the energy… and limit 5",
    expected: "keywords",
    carries: ["Solar and wind power lead the energy", "limit=5"],
  },
  { group: "suggestion", request: "Buy Devnet Stock Quotes for ACME", expected: "stock-quote", carries: ["ACME"] },
  { group: "suggestion", request: "Buy Devnet Archive for doc-1", expected: "archive", carries: ["doc-1"] },
  { group: "suggestion", request: "Buy Devnet Guide Porto parks with days 3", expected: "guide-porto-parks", carries: ["days=3"] },
  { group: "suggestion", request: "Buy Devnet FX Rates x402 v1 for EUR", expected: "fx-rates", carries: ["EUR"] },
  // Nothing listed does these.
  { group: "nothing", request: "Book me a flight to Paris next Friday", expected: NOTHING },
  { group: "nothing", request: "Tell me a joke about cats", expected: NOTHING },
  { group: "nothing", request: "Order a large pepperoni pizza", expected: NOTHING },
  { group: "nothing", request: "Send an email to my landlord about the heating", expected: NOTHING },
  { group: "nothing", request: "What's the capital of Australia?", expected: NOTHING },
  { group: "nothing", request: "Find me a cheap hotel in Rome", expected: NOTHING },
];
