-- The start of every script (docs/fleet.md describes the protocol). The quota's keys are named
-- here; the limiter's script names its own three, of the same types as the first three.
--
-- KEYS[1] the pool, a hash: capacity, available, held_total (the sum of the held hash's
--         values), owed_total (the sum of the owed hash's values)
-- KEYS[2] the leases, a sorted set: lease id -> expiry, in milliseconds of this server's clock
-- KEYS[3] the tokens each lease holds, a hash: lease id -> tokens
-- KEYS[4] what each lease's last report said it spent and has not refunded yet, a hash:
--         lease id -> tokens
--
-- Invariants, at the end of every script: available + held_total <= capacity, and
-- owed_total <= capacity - available - held_total (the tokens the pool misses).
--
-- Every value a script reads is checked before it writes anything: a count that is not a
-- whole number from 0 to 2^32 - 1, pool fields that break the invariants, a lease holding
-- more than held_total or owing more than owed_total (alone or with the other leases lapsing
-- with it), a lease expiring further ahead than the longest TTL: each is a CORRUPT reply, and
-- the script ends without a write. Scripts never repair the keys by guesswork; deleting them
-- starts a new, full pool.
--
-- Replies are arrays whose first element says what happened: 'OK' followed by counts, or
-- 'LOST' (no such lease: it lapsed and its tokens went back), 'MISMATCH' and the stored
-- capacity, 'WRONGTYPE' and a key and its type, 'CORRUPT' and what is wrong, 'BADARG' and
-- the argument's position.

-- Redis 3.2 to 4 replicate a script's effects, needed after TIME, only when asked; later
-- versions and Valkey always do, and keep the function as a no-op.
if redis.replicate_commands then
  redis.replicate_commands()
end

local pool, leases, held, owed = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

-- At most this many lapsed leases are reclaimed per call, so that no script runs long.
local RECLAIM_LIMIT = 100
local U32_MAX = 4294967295
-- The longest lease TTL (rebound_redis::MAX_LEASE_TTL, a day) in milliseconds: no lease or
-- member expires further ahead than this.
local MAX_TTL_MS = 86400000

-- The largest whole number Lua's numbers hold exactly: the bound of times in milliseconds.
local EXACT_MAX = 9007199254740992

-- A whole number from 0 to `max`, or nil.
local function whole(value, max)
  local n = tonumber(value)
  if n == nil or n < 0 or n > max or n ~= math.floor(n) then
    return nil
  end
  return n
end

-- A whole number from 0 to 2^32 - 1 (a count), or nil.
local function count(value)
  return whole(value, U32_MAX)
end

-- The argument at `index` as a count, or nil and the BADARG reply.
local function count_arg(index)
  local n = count(ARGV[index])
  if n == nil then
    return nil, {'BADARG', index}
  end
  return n, nil
end

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The WRONGTYPE reply when one of the keys holds another type than this protocol's, or nil.
local function wrong_type()
  local expected = {{pool, 'hash'}, {leases, 'zset'}, {held, 'hash'}, {owed, 'hash'}}
  for _, pair in ipairs(expected) do
    if pair[1] then
      local found = redis.call('TYPE', pair[1]).ok
      if found ~= 'none' and found ~= pair[2] then
        return {'WRONGTYPE', pair[1], found}
      end
    end
  end
  return nil
end

-- The CORRUPT reply when the sorted set `zset` has a member that expires more than the longest
-- TTL after `now` (it would never lapse), or nil.
local function beyond_horizon(zset, now)
  local far = redis.call('ZRANGEBYSCORE', zset, '(' .. (now + MAX_TTL_MS), '+inf', 'LIMIT', 0, 1)
  if #far > 0 then
    return {'CORRUPT', zset .. ' has a member expiring beyond the longest TTL'}
  end
  return nil
end

-- The pool as a table, or nil when it does not exist; or nil and the CORRUPT reply.
local function load_pool(now)
  if redis.call('EXISTS', pool) == 0 then
    return nil, nil
  end
  local v = redis.call('HMGET', pool, 'capacity', 'available', 'held_total', 'owed_total')
  local p = {capacity = count(v[1]), available = count(v[2]), held_total = count(v[3]),
    owed_total = count(v[4] or 0)}
  if p.capacity == nil or p.capacity == 0 then
    return nil, {'CORRUPT', 'capacity is not a whole number from 1 to 2^32 - 1'}
  end
  if p.available == nil or p.held_total == nil or p.owed_total == nil then
    return nil, {'CORRUPT', 'available, held_total or owed_total is not a whole number from 0 to 2^32 - 1'}
  end
  if p.available + p.held_total > p.capacity then
    return nil, {'CORRUPT', 'available + held_total exceeds capacity'}
  end
  if p.owed_total > p.capacity - p.available - p.held_total then
    return nil, {'CORRUPT', 'owed_total exceeds the tokens the pool misses'}
  end
  local far = beyond_horizon(leases, now)
  if far then return nil, far end
  return p, nil
end

-- A new, full pool. Leases left from an earlier pool (one deleted or evicted) are void: their
-- tokens are part of the new pool's capacity.
local function create_pool(capacity)
  redis.call('DEL', leases, held, owed)
  return {capacity = capacity, available = capacity, held_total = 0, owed_total = 0}
end

local function save_pool(p)
  redis.call('HSET', pool, 'capacity', p.capacity, 'available', p.available,
    'held_total', p.held_total, 'owed_total', p.owed_total)
end

-- What the lease `id` holds and owes, read and checked: each within its total once `spent`
-- tokens and `owing` of other leases lapsing with it are counted. Or nil and the CORRUPT reply.
local function lease_counts(p, id, holding, owing)
  local tokens, owes = 0, 0
  local raw = redis.call('HGET', held, id)
  if raw then tokens = count(raw) end
  raw = redis.call('HGET', owed, id)
  if raw then owes = count(raw) end
  if tokens == nil or tokens + holding > p.held_total then
    return nil, nil, {'CORRUPT', 'a lease holds more than held_total'}
  end
  if owes == nil or owes + owing > p.owed_total then
    return nil, nil, {'CORRUPT', 'a lease owes more than owed_total'}
  end
  return tokens, owes, nil
end

-- Deletes the lease `id`, which holds `tokens` and owes `owes`: its tokens go back to the pool,
-- and what it owes is nobody's in particular from now on.
local function drop_lease(p, id, tokens, owes)
  redis.call('HDEL', held, id)
  redis.call('HDEL', owed, id)
  redis.call('ZREM', leases, id)
  p.held_total = p.held_total - tokens
  p.available = p.available + tokens
  p.owed_total = p.owed_total - owes
end

-- Reclaims up to RECLAIM_LIMIT leases that expired at `now` or earlier, oldest first, and the
-- lease `id` (when given) if it expired too, after checking them all and the lease `id` with
-- them. Returns the lease `id` as {alive, tokens, owes} (alive: it has an expiry, still ahead;
-- a lease that is not alive holds and owes nothing, unless the held hash names it without a
-- lease); or nil and the CORRUPT reply, with nothing written.
local function reclaim_expired(p, now, id)
  local batch = redis.call('ZRANGEBYSCORE', leases, '-inf', now, 'LIMIT', 0, RECLAIM_LIMIT)
  local listed = false
  for _, lapsed in ipairs(batch) do
    listed = listed or lapsed == id
  end
  local stays = nil
  if id ~= nil and not listed then
    local expiry = redis.call('ZSCORE', leases, id)
    if expiry and tonumber(expiry) <= now then
      batch[#batch + 1] = id
    else
      stays = expiry ~= false
    end
  end
  local counted, holding, owing = {}, 0, 0
  for i, lapsed in ipairs(batch) do
    local tokens, owes, corrupt = lease_counts(p, lapsed, holding, owing)
    if corrupt then return nil, corrupt end
    counted[i] = {tokens, owes}
    holding = holding + tokens
    owing = owing + owes
  end
  local lease = {alive = false, tokens = 0, owes = 0}
  if stays ~= nil then
    local tokens, owes, corrupt = lease_counts(p, id, holding, owing)
    if corrupt then return nil, corrupt end
    lease = {alive = stays, tokens = tokens, owes = owes}
  end
  for i, lapsed in ipairs(batch) do
    drop_lease(p, lapsed, counted[i][1], counted[i][2])
  end
  return lease, nil
end

-- A lease's fair share: the capacity split evenly between the live leases (this one counted).
-- No lease grows beyond it, and a report trims one above it, so that a fleet with more
-- processes than the capacity has leases' worth of tokens still gives each process a part.
local function fair_share(p)
  local live = math.max(redis.call('ZCARD', leases), 1)
  return math.floor(p.capacity / live)
end

-- The pool, the time, and the lease `id` (see `reclaim_expired`). Checks the keys, creates the
-- pool full with `capacity` when it does not exist (when `capacity` is given), and reclaims
-- lapsed leases. Or nil and the reply that ends the script: a key of another type, a corrupt
-- pool, another capacity, or LOST when the pool does not exist and `capacity` is nil.
local function open(capacity, id)
  local wrong = wrong_type()
  if wrong then return nil, wrong end
  local now = now_ms()
  local p, corrupt = load_pool(now)
  if corrupt then return nil, corrupt end
  if p == nil then
    if capacity == nil then return nil, {'LOST'} end
    p = create_pool(capacity)
  elseif capacity ~= nil and p.capacity ~= capacity then
    return nil, {'MISMATCH', p.capacity}
  end
  local lease
  lease, corrupt = reclaim_expired(p, now, id)
  if corrupt then return nil, corrupt end
  return p, nil, now, lease
end

-- Milliseconds from `now` until the fleet's first lease lapses (0 when one has; 2^32 - 1 when
-- there is none): when to call again to reclaim it.
local function next_lapse(now)
  local first = redis.call('ZRANGE', leases, 0, 0, 'WITHSCORES')
  if #first == 0 then return U32_MAX end
  return math.max(math.min(tonumber(first[2]) - now, U32_MAX), 0)
end

-- The pool, the time and the live lease `id` (see `open`); or nil and the reply that ends the
-- script (LOST when the lease or the pool is gone).
local function open_lease(id)
  local p, refused, now, lease = open(nil, id)
  if refused then return nil, refused end
  if not lease.alive then
    save_pool(p)
    return nil, {'LOST'}
  end
  return p, nil, now, lease
end

-- The body of the script follows.
