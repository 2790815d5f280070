-- release(id, keep_returned): the lease `id` ends; the `keep_returned` tokens it still has
-- (at most what it holds) go back to the pool. Reply: OK returned available, or LOST.
local id = ARGV[1]
if id == nil or id == '' then return {'BADARG', 1} end
local keep, bad = count_arg(2)
if bad then return bad end
local wrong = wrong_type()
if wrong then return wrong end
local p, corrupt = load_pool()
if corrupt then return corrupt end
if p == nil then return {'LOST'} end
local now = now_ms()
reclaim_expired(p, now)
if not lease_alive(p, id, now) then
  save_pool(p)
  return {'LOST'}
end
local tokens = count(redis.call('HGET', held, id)) or 0
local returned = math.min(keep, tokens)
redis.call('HDEL', held, id)
redis.call('ZREM', leases, id)
p.held_total = math.max(p.held_total - tokens, 0)
p.available = math.max(math.min(p.available + returned, p.capacity - p.held_total), 0)
save_pool(p)
return {'OK', returned, p.available}
