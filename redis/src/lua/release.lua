-- release(id, keep_returned): the lease `id` ends; the `keep_returned` tokens it still has
-- (at most what it holds) go back to the pool. Reply: OK returned available, or LOST.
local id = ARGV[1]
if id == nil or id == '' then return {'BADARG', 1} end
local keep, bad = count_arg(2)
if bad then return bad end
local p, refused, _, tokens = open_lease(id)
if refused then return refused end
local returned = math.min(keep, tokens)
redis.call('HDEL', held, id)
redis.call('ZREM', leases, id)
p.held_total = math.max(p.held_total - tokens, 0)
p.available = math.max(math.min(p.available + returned, p.capacity - p.held_total), 0)
save_pool(p)
return {'OK', returned, p.available}
