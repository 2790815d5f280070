-- The start of every script (docs/fleet.md describes the protocol). The quota's keys are named
-- here; the limiter's script names its own three, of the same types.
--
-- KEYS[1] the pool, a hash: capacity, available, held_total (the sum of the held hash's values)
-- KEYS[2] the leases, a sorted set: lease id -> expiry, in milliseconds of this server's clock
-- KEYS[3] the tokens each lease holds, a hash: lease id -> tokens
--
-- Invariant, at the end of every script: available + held_total <= capacity.
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

local pool, leases, held = KEYS[1], KEYS[2], KEYS[3]

-- At most this many lapsed leases are reclaimed per call, so that no script runs long.
local RECLAIM_LIMIT = 100

-- A non-negative whole number (a count or a time), or nil.
local function count(value)
  local n = tonumber(value)
  if n == nil or n < 0 or n ~= math.floor(n) then
    return nil
  end
  return n
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
  local expected = {{pool, 'hash'}, {leases, 'zset'}, {held, 'hash'}}
  for _, pair in ipairs(expected) do
    local found = redis.call('TYPE', pair[1]).ok
    if found ~= 'none' and found ~= pair[2] then
      return {'WRONGTYPE', pair[1], found}
    end
  end
  return nil
end

-- The pool as a table, or nil when it does not exist; or nil and the CORRUPT reply.
local function load_pool()
  if redis.call('EXISTS', pool) == 0 then
    return nil, nil
  end
  local v = redis.call('HMGET', pool, 'capacity', 'available', 'held_total')
  local p = {capacity = count(v[1]), available = count(v[2]), held_total = count(v[3])}
  if p.capacity == nil or p.capacity == 0 then
    return nil, {'CORRUPT', 'capacity is not a positive whole number'}
  end
  if p.available == nil or p.held_total == nil then
    return nil, {'CORRUPT', 'available or held_total is not a whole number'}
  end
  if p.available + p.held_total > p.capacity then
    return nil, {'CORRUPT', 'available + held_total exceeds capacity'}
  end
  return p, nil
end

-- A new, full pool. Leases left from an earlier pool (one deleted or evicted) are void: their
-- tokens are part of the new pool's capacity.
local function create_pool(capacity)
  redis.call('DEL', leases, held)
  return {capacity = capacity, available = capacity, held_total = 0}
end

local function save_pool(p)
  redis.call('HSET', pool, 'capacity', p.capacity, 'available', p.available,
    'held_total', p.held_total)
end

-- Deletes the lease `id` and returns its tokens to the pool, never above what the other
-- leases leave room for.
local function reclaim(p, id)
  local tokens = count(redis.call('HGET', held, id)) or 0
  redis.call('HDEL', held, id)
  redis.call('ZREM', leases, id)
  p.held_total = math.max(p.held_total - tokens, 0)
  p.available = math.max(math.min(p.available + tokens, p.capacity - p.held_total), 0)
end

-- Reclaims up to RECLAIM_LIMIT leases that expired at `now` or earlier, oldest first.
local function reclaim_expired(p, now)
  local expired = redis.call('ZRANGEBYSCORE', leases, '-inf', now, 'LIMIT', 0, RECLAIM_LIMIT)
  for _, id in ipairs(expired) do
    reclaim(p, id)
  end
end

-- Whether the lease `id` exists after reclaiming: one that has expired but was not among the
-- bounded batch above is reclaimed here.
local function lease_alive(p, id, now)
  local expiry = redis.call('ZSCORE', leases, id)
  if not expiry then
    return false
  end
  if tonumber(expiry) <= now then
    reclaim(p, id)
    return false
  end
  return true
end

-- A lease's fair share: the capacity split evenly between the live leases (this one counted).
-- No lease grows beyond it, and a report trims one above it, so that a fleet with more
-- processes than the capacity has leases' worth of tokens still gives each process a part.
local function fair_share(p)
  local live = math.max(redis.call('ZCARD', leases), 1)
  return math.floor(p.capacity / live)
end

-- The pool, created full with `capacity` when it does not exist; or nil and the reply that
-- ends the script (a key of another type, a corrupt pool, another capacity).
local function open_pool(capacity)
  local wrong = wrong_type()
  if wrong then return nil, wrong end
  local p, corrupt = load_pool()
  if corrupt then return nil, corrupt end
  if p == nil then
    return create_pool(capacity), nil
  end
  if p.capacity ~= capacity then
    return nil, {'MISMATCH', p.capacity}
  end
  return p, nil
end

-- The pool, the time and the tokens of the live lease `id`, after lapsed leases are reclaimed;
-- or nil and the reply that ends the script (LOST when the lease or the pool is gone).
local function open_lease(id)
  local wrong = wrong_type()
  if wrong then return nil, wrong end
  local p, corrupt = load_pool()
  if corrupt then return nil, corrupt end
  if p == nil then return nil, {'LOST'} end
  local now = now_ms()
  reclaim_expired(p, now)
  if not lease_alive(p, id, now) then
    save_pool(p)
    return nil, {'LOST'}
  end
  return p, nil, now, count(redis.call('HGET', held, id)) or 0
end

-- The body of the script follows.
