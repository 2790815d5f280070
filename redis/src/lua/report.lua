-- report(id, keep, refunds, ttl_ms): the lease `id` keeps `keep` of its tokens (the rest were
-- spent on retries) and earned `refunds` from successes; its expiry moves to ttl_ms from now.
-- A lease never grows here: keep is capped at what it holds. A lease above its fair share gives
-- the tokens above it back to the pool. Refunds fill the pool up to what the leases leave room
-- for, never beyond. Reply: OK held available held_total, or LOST.
local id = ARGV[1]
if id == nil or id == '' then return {'BADARG', 1} end
local keep, bad = count_arg(2)
if bad then return bad end
local refunds, bad_refunds = count_arg(3)
if bad_refunds then return bad_refunds end
local ttl, bad_ttl = count_arg(4)
if bad_ttl then return bad_ttl end
local p, refused, now, tokens = open_lease(id)
if refused then return refused end
local kept = math.min(keep, tokens)
local returned = math.max(kept - fair_share(p), 0)
kept = kept - returned
p.held_total = math.max(p.held_total - tokens + kept, 0)
p.available = math.max(math.min(p.available + returned + refunds, p.capacity - p.held_total), 0)
redis.call('HSET', held, id, kept)
redis.call('ZADD', leases, now + ttl, id)
save_pool(p)
return {'OK', kept, p.available, p.held_total}
