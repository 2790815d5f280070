-- The fleet rate limiter's one call (docs/fleet.md, "The fleet rate limiter").
--
-- KEYS[1] the limiter, a hash: cuts (how many times the fleet's rate was cut), w_max (the
--         fleet's rate at the last cut), cut_ms (when, in milliseconds of this server's clock),
--         sum (the members' rates added up), asked (the bounded demands added up), unbounded
--         (how many members' demands are unbounded), cut_members (how many members the fleet
--         had at the last cut)
-- KEYS[2] the members, a sorted set: member id -> expiry, in milliseconds of this server's clock
-- KEYS[3] the members' rates, a hash: member id -> measured rate
-- KEYS[4] the members' demands, a hash: member id -> the rate it would send, or UNBOUNDED when
--         the rate it is held at limits it
--
-- Rates are whole numbers of milli-requests per second.
--
-- ARGV: member id, its measured rate, the throttles it saw since its last call, ttl_ms (0: the
-- member leaves), the window in milliseconds within which throttles count as one event (one
-- cut), and its demand.
--
-- Reply: OK cuts w_max since_cut_ms sum members asked unbounded cut_members, or WRONGTYPE key type,
-- CORRUPT what, BADARG position. Every number in it is a whole number from 0 to 2^32 - 1.

-- After the prelude (its `count`, `whole`, `count_arg`, `now_ms`, `beyond_horizon` and
-- `wrong_type`, which checks these four keys' types: a hash, a sorted set, a hash and a hash,
-- as the quota's).
local limiter, members, rates, demands = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local MAX_RATE = 1000000000 -- a million requests per second, in milli-requests
local UNBOUNDED = U32_MAX

local id = ARGV[1]
if id == nil or id == '' then return {'BADARG', 1} end
local rate, bad = count_arg(2)
if bad then return bad end
if rate > MAX_RATE then return {'BADARG', 2} end
local throttles, bad_throttles = count_arg(3)
if bad_throttles then return bad_throttles end
local ttl, bad_ttl = count_arg(4)
if bad_ttl then return bad_ttl end
local window, bad_window = count_arg(5)
if bad_window then return bad_window end
local demand, bad_demand = count_arg(6)
if bad_demand then return bad_demand end
if demand > MAX_RATE and demand ~= UNBOUNDED then return {'BADARG', 6} end
local wrong = wrong_type()
if wrong then return wrong end
local now = now_ms()

local v = redis.call('HMGET', limiter, 'cuts', 'w_max', 'cut_ms', 'sum', 'asked', 'unbounded',
  'cut_members')
local cuts, w_max = count(v[1] or 0), whole(v[2] or 0, EXACT_MAX)
local cut_ms, sum = whole(v[3] or 0, EXACT_MAX), whole(v[4] or 0, EXACT_MAX)
local asked, unbounded = whole(v[5] or 0, EXACT_MAX), count(v[6] or 0)
local cut_members = count(v[7] or 0)
if cuts == nil or w_max == nil or cut_ms == nil or sum == nil or asked == nil
    or unbounded == nil or cut_members == nil then
  return {'CORRUPT', 'a limiter field is not a whole number in range'}
end
local far = beyond_horizon(members, now)
if far then return far end

-- A member's stored rate (0 when it has none), or nil when it is not a rate.
local function stored_rate(member)
  local raw = redis.call('HGET', rates, member)
  if not raw then return 0 end
  local r = count(raw)
  if r == nil or r > MAX_RATE then return nil end
  return r
end

-- A member's stored demand (nil when it has none), or false when it is not a demand.
local function stored_demand(member)
  local raw = redis.call('HGET', demands, member)
  if not raw then return nil end
  local d = count(raw)
  if d == nil or (d > MAX_RATE and d ~= UNBOUNDED) then return false end
  return d
end

-- Takes a member's demand `d` (nil: none) out of the totals, or adds it (`sign` 1).
local function count_demand(d, sign)
  if d == UNBOUNDED then
    unbounded = math.max(unbounded + sign, 0)
  elseif d ~= nil then
    asked = math.max(asked + sign * d, 0)
  end
end

-- Members that stopped calling leave, with their rates and demands (a bounded batch per call);
-- every rate and demand is checked before anything is written.
local lapsed = redis.call('ZRANGEBYSCORE', members, '-inf', now, 'LIMIT', 0, RECLAIM_LIMIT)
local lapsed_rates, lapsed_demands = {}, {}
for i, gone in ipairs(lapsed) do
  lapsed_rates[i] = stored_rate(gone)
  if lapsed_rates[i] == nil then return {'CORRUPT', 'a member\'s rate is not a rate'} end
  lapsed_demands[i] = stored_demand(gone)
  if lapsed_demands[i] == false then return {'CORRUPT', 'a member\'s demand is not a demand'} end
end
local own = stored_rate(id)
if own == nil then return {'CORRUPT', 'a member\'s rate is not a rate'} end
local own_demand = stored_demand(id)
if own_demand == false then return {'CORRUPT', 'a member\'s demand is not a demand'} end
for i, gone in ipairs(lapsed) do
  sum = sum - lapsed_rates[i]
  count_demand(lapsed_demands[i], -1)
  redis.call('HDEL', rates, gone)
  redis.call('HDEL', demands, gone)
  redis.call('ZREM', members, gone)
  if gone == id then own, own_demand = 0, nil end
end

sum = math.max(sum - own, 0)
count_demand(own_demand, -1)
if ttl == 0 then
  -- A TTL of 0: the member leaves, its rate and demand out of the totals now.
  redis.call('HDEL', rates, id)
  redis.call('HDEL', demands, id)
  redis.call('ZREM', members, id)
  redis.call('HSET', limiter, 'sum', sum, 'asked', asked, 'unbounded', unbounded)
else
  sum = sum + rate
  count_demand(demand, 1)
  redis.call('HSET', rates, id, rate)
  redis.call('HSET', demands, id, demand)
  redis.call('ZADD', members, now + ttl, id)

  -- The fleet's rate is cut once per event: the first throttle after the window since the
  -- last cut. It is cut from what the fleet measured, this member's rate just added.
  if throttles > 0 and (cuts == 0 or now - cut_ms >= window) then
    cuts = cuts + 1
    w_max = sum
    cut_ms = now
    cut_members = redis.call('ZCARD', members)
  elseif cuts > 0 and now - cut_ms < window and sum > w_max then
    -- Within the window the members report what they were admitted before they heard of the
    -- cut: the fleet was admitted at least that much.
    w_max = sum
  end
  redis.call('HSET', limiter, 'cuts', cuts, 'w_max', w_max, 'cut_ms', cut_ms, 'sum', sum,
    'asked', asked, 'unbounded', unbounded, 'cut_members', cut_members)
  -- Keys of a fleet nobody calls any more go away.
  local idle = ttl * 2 + window
  redis.call('PEXPIRE', limiter, idle)
  redis.call('PEXPIRE', members, idle)
  redis.call('PEXPIRE', rates, idle)
  redis.call('PEXPIRE', demands, idle)
end

local since = 0
if cuts > 0 then since = math.max(now - cut_ms, 0) end
return {'OK', math.min(cuts, U32_MAX), math.min(w_max, U32_MAX), math.min(since, U32_MAX),
  math.min(sum, U32_MAX), math.min(redis.call('ZCARD', members), U32_MAX),
  math.min(asked, U32_MAX), math.min(unbounded, U32_MAX), math.min(cut_members, U32_MAX)}
