-- report(id, keep, refunds, ttl_ms): the lease `id` keeps `keep` of its tokens (the rest were
-- spent on retries) and earned `refunds` from successes; its expiry moves to ttl_ms from now.
-- A lease never grows here: keep is capped at what it holds. A lease above its fair share gives
-- the tokens above it back to the pool.
--
-- Refunds repay first what this lease's last report said it spent, then the tokens the pool
-- misses that no live lease owes; never what another live lease spent since its own last
-- report (its refunds repay that). What this report says it spent is what the lease owes
-- from now on, until its next report.
--
-- The reply says how many refunds this lease may bring to its next report (its refund room):
-- what it owes, plus its share of the tokens the pool misses that no live lease owes, never
-- more than the pool misses. The rooms of all leases add up to what the pool misses, so that
-- refunds earned while the pool had nothing to refill (as a full local quota drops them) are
-- not banked for later. The share is those tokens split evenly between the live leases; the
-- remainder of the division goes to a lease with the matching probability (read off the
-- store's clock), so that a deficit smaller than the fleet is refilled too.
--
-- Reply: OK held available held_total refund_room next_lapse_ms (see the prelude's
-- `next_lapse`), or LOST.
local id = ARGV[1]
if id == nil or id == '' then return {'BADARG', 1} end
local keep, bad = count_arg(2)
if bad then return bad end
local refunds, bad_refunds = count_arg(3)
if bad_refunds then return bad_refunds end
local ttl, bad_ttl = count_arg(4)
if bad_ttl then return bad_ttl end
if ttl > MAX_TTL_MS then return {'BADARG', 4} end
local p, refused, now, lease = open_lease(id)
if refused then return refused end
-- The tokens the pool misses that no live lease owes, before this report.
local nobodys = p.capacity - p.held_total - p.available - p.owed_total
local tokens = lease.tokens
local kept = math.min(keep, tokens)
local spent = tokens - kept
local returned = math.max(kept - fair_share(p), 0)
kept = kept - returned
p.held_total = p.held_total - tokens + kept
p.available = p.available + returned
-- Refunds: what this lease owed, then what nobody owes.
local credit = math.min(refunds, lease.owes + nobodys)
p.available = p.available + credit
p.owed_total = p.owed_total - lease.owes + spent
if spent > 0 then
  redis.call('HSET', owed, id, spent)
else
  redis.call('HDEL', owed, id)
end
redis.call('HSET', held, id, kept)
redis.call('ZADD', leases, now + ttl, id)
save_pool(p)
local missing = p.capacity - p.held_total - p.available
nobodys = missing - p.owed_total
local live = math.max(redis.call('ZCARD', leases), 1)
local share = math.floor(nobodys / live)
if tonumber(redis.call('TIME')[2]) % live < nobodys % live then
  share = share + 1
end
return {'OK', kept, p.available, p.held_total, math.min(spent + share, missing),
  next_lapse(now)}
