-- lease(capacity, id, want, ttl_ms): the lease `id` now expires ttl_ms from now and takes
-- min(want, available) more tokens, never growing beyond its fair share. A lease that had
-- lapsed is taken anew. Creates the pool like init when it does not exist.
-- Reply: OK granted held available next_lapse_ms (see the prelude's `next_lapse`).
local capacity, bad = count_arg(1)
if bad then return bad end
if capacity == 0 then return {'BADARG', 1} end
local id = ARGV[2]
if id == nil or id == '' then return {'BADARG', 2} end
local want, bad_want = count_arg(3)
if bad_want then return bad_want end
local ttl, bad_ttl = count_arg(4)
if bad_ttl then return bad_ttl end
if ttl > MAX_TTL_MS then return {'BADARG', 4} end
local p, refused, now, lease = open(capacity, id)
if refused then return refused end
redis.call('ZADD', leases, now + ttl, id)
local tokens = lease.tokens
local granted = math.max(math.min(want, p.available, fair_share(p) - tokens), 0)
p.available = p.available - granted
p.held_total = p.held_total + granted
tokens = tokens + granted
redis.call('HSET', held, id, tokens)
save_pool(p)
return {'OK', granted, tokens, p.available, next_lapse(now)}
