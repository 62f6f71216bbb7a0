/**
 * The Lua scripts of the Redis store. Each runs atomically inside Redis, which is what makes a
 * reservation safe when many instances reserve for one payer at once. Amounts travel as
 * decimal strings of base units and are added and compared digit by digit, because Lua numbers
 * are doubles and would round amounts above 2^53.
 *
 * Ledger keys per payer (see redis-ledger.ts): KEYS[1] reservation id -> payer, KEYS[2] ZSET of
 * outstanding reservations scored by expiry, KEYS[3] ZSET of settled entries scored by time,
 * KEYS[4] HASH id -> JSON { state, amount, txHash?, at? }.
 */

const DECIMALS = `
local function strip(value)
  local stripped = string.gsub(value, "^0+", "")
  if stripped == "" then return "0" end
  return stripped
end

local function add(left, right)
  local digits, carry = {}, 0
  local i, j = #left, #right
  while i >= 1 or j >= 1 or carry > 0 do
    local sum = carry
    if i >= 1 then sum = sum + string.byte(left, i) - 48 end
    if j >= 1 then sum = sum + string.byte(right, j) - 48 end
    digits[#digits + 1] = string.char(48 + sum % 10)
    carry = math.floor(sum / 10)
    i, j = i - 1, j - 1
  end
  return strip(string.reverse(table.concat(digits)))
end

local function compare(left, right)
  left, right = strip(left), strip(right)
  if #left ~= #right then
    if #left < #right then return -1 end
    return 1
  end
  -- Byte by byte: Lua's < on strings follows the server's locale.
  for index = 1, #left do
    local a, b = string.byte(left, index), string.byte(right, index)
    if a ~= b then
      if a < b then return -1 end
      return 1
    end
  end
  return 0
end

-- The time every comparison uses: a test's (ARGV given) or Redis's own clock, which every
-- instance shares. Milliseconds; whole numbers well inside a double's exact range.
local function clockOr(given)
  local now = tonumber(given)
  if now then return now end
  local time = redis.call("TIME")
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

local function sumAmounts(zsetKey, entriesKey, minimum)
  local total = "0"
  local ids = redis.call("ZRANGEBYSCORE", zsetKey, minimum, "+inf")
  for index = 1, #ids do
    local value = redis.call("HGET", entriesKey, ids[index])
    if value then total = add(total, cjson.decode(value).amount) end
  end
  return total
end
`;

/** ARGV: id, payer, amount, dailyLimit, now (empty: Redis's clock), windowMs, reservationTtlMs, keyTtlMs. */
const RESERVE = `${DECIMALS}
local id, payer, amount, limit = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local nowMs = clockOr(ARGV[5])
local now, cutoff, expiresAt, keyTtl = string.format("%d", nowMs), string.format("%d", nowMs - tonumber(ARGV[6])), string.format("%d", nowMs + tonumber(ARGV[7])), ARGV[8]

-- Forget settled entries that left the window and reservations past their safety TTL.
local stale = redis.call("ZRANGEBYSCORE", KEYS[3], "-inf", cutoff)
for index = 1, #stale do redis.call("HDEL", KEYS[4], stale[index]) end
redis.call("ZREMRANGEBYSCORE", KEYS[3], "-inf", cutoff)
stale = redis.call("ZRANGEBYSCORE", KEYS[2], "-inf", now)
for index = 1, #stale do redis.call("HDEL", KEYS[4], stale[index]) end
redis.call("ZREMRANGEBYSCORE", KEYS[2], "-inf", now)

-- A retry of the same reservation succeeds without reserving twice.
local owner = redis.call("GET", KEYS[1])
if owner and owner ~= payer then return {"conflict"} end
local existing = redis.call("HGET", KEYS[4], id)
if existing then
  if cjson.decode(existing).amount ~= amount then return {"conflict"} end
  return {"ok"}
end

local spent = sumAmounts(KEYS[3], KEYS[4], "(" .. cutoff)
local reserved = sumAmounts(KEYS[2], KEYS[4], "(" .. now)
if compare(add(add(spent, reserved), amount), limit) > 0 then
  return {"daily", spent, reserved}
end

redis.call("HSET", KEYS[4], id, cjson.encode({ state = "reserved", amount = amount }))
redis.call("ZADD", KEYS[2], expiresAt, id)
redis.call("SET", KEYS[1], payer, "PX", keyTtl)
for index = 2, 4 do redis.call("PEXPIRE", KEYS[index], keyTtl) end
return {"ok"}
`;

/**
 * ARGV: id, txHash, at (empty: Redis's clock), keyTtlMs, settled amount (empty: the reserved
 * amount). A settled amount above the reserved one changes nothing and answers {"exceeds"}.
 */
const COMMIT = `${DECIMALS}
local id, txHash, at, keyTtl, settled = ARGV[1], ARGV[2], string.format("%d", clockOr(ARGV[3])), ARGV[4], ARGV[5]
local existing = redis.call("HGET", KEYS[4], id)
if not existing then return {"not-found"} end
local entry = cjson.decode(existing)
if entry.state == "committed" then return {"already-committed", entry.amount, entry.txHash, entry.at} end
if settled ~= nil and settled ~= "" then
  if compare(settled, entry.amount) > 0 then return {"exceeds"} end
  entry.amount = strip(settled)
end
entry.state, entry.txHash, entry.at = "committed", txHash, at
redis.call("HSET", KEYS[4], id, cjson.encode(entry))
redis.call("ZREM", KEYS[2], id)
redis.call("ZADD", KEYS[3], at, id)
for index = 1, 4 do redis.call("PEXPIRE", KEYS[index], keyTtl) end
return {"committed", entry.amount, txHash, at}
`;

/** ARGV: id. */
const RELEASE = `
local id = ARGV[1]
local existing = redis.call("HGET", KEYS[4], id)
if not existing then return "not-found" end
if cjson.decode(existing).state == "committed" then return "already-committed" end
redis.call("HDEL", KEYS[4], id)
redis.call("ZREM", KEYS[2], id)
redis.call("DEL", KEYS[1])
return "released"
`;

/** KEYS: reserved, settled, entries. ARGV: now (empty: Redis's clock), windowMs. Read-only. */
const SPENT_TODAY = `${DECIMALS}
local now = clockOr(ARGV[1])
return { sumAmounts(KEYS[2], KEYS[3], "(" .. string.format("%d", now - tonumber(ARGV[2]))), sumAmounts(KEYS[1], KEYS[3], "(" .. string.format("%d", now)) }
`;

/** KEYS: settled, entries. ARGV: now (empty: Redis's clock), windowMs. Read-only; flat list id, json, id, json, … oldest first. */
const ENTRIES = `${DECIMALS}
local ids = redis.call("ZRANGEBYSCORE", KEYS[1], "(" .. string.format("%d", clockOr(ARGV[1]) - tonumber(ARGV[2])), "+inf")
local result = {}
for index = 1, #ids do
  local value = redis.call("HGET", KEYS[2], ids[index])
  if value then
    result[#result + 1] = ids[index]
    result[#result + 1] = value
  end
end
return result
`;

/**
 * KEYS: slot. ARGV: pending JSON, ttlMs. Returns {1} when claimed, else {0, current JSON,
 * milliseconds left on Redis's clock}.
 */
const IDEMPOTENCY_CLAIM = `
if redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then return {1} end
return {0, redis.call("GET", KEYS[1]), redis.call("PTTL", KEYS[1])}
`;

/** KEYS: slot. ARGV: [holder]. Deletes the slot only while it is a claim (of `holder`, if given). */
const IDEMPOTENCY_RELEASE = `
local value = redis.call("GET", KEYS[1])
if not value then return 1 end
local slot = cjson.decode(value)
if slot.state == "pending" and (ARGV[1] == nil or slot.holder == ARGV[1]) then redis.call("DEL", KEYS[1]) end
return 1
`;

/**
 * KEYS: counter (a hash: which window, how many hits). ARGV: windowMs, now (empty: Redis's own
 * clock, so every instance agrees where a window starts however their clocks drift). Returns
 * the count including this hit and the milliseconds left in the window.
 */
const RATE_LIMIT_HIT = `
local windowMs = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
if not now then
  local time = redis.call("TIME")
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local window = math.floor(now / windowMs)
if tonumber(redis.call("HGET", KEYS[1], "window")) ~= window then
  redis.call("HSET", KEYS[1], "window", window, "count", 0)
end
local count = redis.call("HINCRBY", KEYS[1], "count", 1)
redis.call("PEXPIRE", KEYS[1], windowMs + 1000)
return {count, (window + 1) * windowMs - now}
`;

/** Passed to ioredis as its `scripts` option; each becomes a method on the client. */
export const REDIS_SCRIPTS = {
  x402LedgerReserve: { lua: RESERVE, numberOfKeys: 4 },
  x402LedgerCommit: { lua: COMMIT, numberOfKeys: 4 },
  x402LedgerRelease: { lua: RELEASE, numberOfKeys: 4 },
  x402LedgerSpentToday: { lua: SPENT_TODAY, numberOfKeys: 3 },
  x402LedgerEntries: { lua: ENTRIES, numberOfKeys: 2 },
  x402IdempotencyClaim: { lua: IDEMPOTENCY_CLAIM, numberOfKeys: 1 },
  x402IdempotencyRelease: { lua: IDEMPOTENCY_RELEASE, numberOfKeys: 1 },
  x402RateLimitHit: { lua: RATE_LIMIT_HIT, numberOfKeys: 1 },
} as const;

export type RedisScriptName = keyof typeof REDIS_SCRIPTS;
