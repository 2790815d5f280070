-- init(capacity): creates the pool, full, unless it exists; an existing pool must have this
-- capacity (it is never changed here). Reclaims lapsed leases.
-- Reply: OK capacity available held_total.
local capacity, bad = count_arg(1)
if bad then return bad end
if capacity == 0 then return {'BADARG', 1} end
local p, refused = open(capacity, nil)
if refused then return refused end
save_pool(p)
return {'OK', p.capacity, p.available, p.held_total}
