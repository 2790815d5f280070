-- inspect(): the fleet's keys as they are, read without writing (no lease is reclaimed, no
-- pool created) and without checking them, for an operator. KEYS[5] to KEYS[8] are the rate
-- limiter's (its state, its members, their rates, their demands). Every stored value comes back as
-- the string stored, cut at 64 bytes ('' when absent); at most LISTED leases and members, the
-- soonest to expire first.
--
-- Reply: OK now_ms {capacity available held_total owed_total} lease_count
--   {id expiry held owed ...} {cuts w_max cut_ms sum asked unbounded cut_members} member_count
--   {id expiry rate demand ...}
-- (a hash that does not exist is {}), or WRONGTYPE key type.
local LISTED = 1000
local limiter, members, rates, demands = KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local wrong = wrong_type()
if wrong then return wrong end
for _, pair in ipairs({{limiter, 'hash'}, {members, 'zset'}, {rates, 'hash'}, {demands, 'hash'}}) do
  local found = redis.call('TYPE', pair[1]).ok
  if found ~= 'none' and found ~= pair[2] then
    return {'WRONGTYPE', pair[1], found}
  end
end

local function shown(value)
  if not value then return '' end
  return string.sub(value, 1, 64)
end

-- The hash `key`'s fields `names`, or {} when it does not exist.
local function fields(key, names)
  if redis.call('EXISTS', key) == 0 then return {} end
  local v = redis.call('HMGET', key, unpack(names))
  local out = {}
  for i = 1, #names do out[i] = shown(v[i]) end
  return out
end

-- The first LISTED members of `zset` with their expiry and their values in `hashes`.
local function listed(zset, hashes)
  local flat = redis.call('ZRANGE', zset, 0, LISTED - 1, 'WITHSCORES')
  local out = {}
  for i = 1, #flat, 2 do
    local id = flat[i]
    out[#out + 1] = shown(id)
    out[#out + 1] = shown(flat[i + 1])
    for _, hash in ipairs(hashes) do
      out[#out + 1] = shown(redis.call('HGET', hash, id))
    end
  end
  return out
end

return {'OK', tostring(now_ms()),
  fields(pool, {'capacity', 'available', 'held_total', 'owed_total'}),
  redis.call('ZCARD', leases), listed(leases, {held, owed}),
  fields(limiter, {'cuts', 'w_max', 'cut_ms', 'sum', 'asked', 'unbounded', 'cut_members'}),
  redis.call('ZCARD', members), listed(members, {rates, demands})}
