-- release(id, keep_returned): the lease `id` ends; the `keep_returned` tokens it still has
-- (at most what it holds) go back to the pool, and what it owes is nobody's in particular from
-- now on. Reply: OK returned available, or LOST.
local id = ARGV[1]
if id == nil or id == '' then return {'BADARG', 1} end
local keep, bad = count_arg(2)
if bad then return bad end
local p, refused, _, lease = open_lease(id)
if refused then return refused end
local returned = math.min(keep, lease.tokens)
drop_lease(p, id, lease.tokens, lease.owes)
-- The tokens it spent since its last report stay spent.
p.available = p.available - (lease.tokens - returned)
save_pool(p)
return {'OK', returned, p.available}
