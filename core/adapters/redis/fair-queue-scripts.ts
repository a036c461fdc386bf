/**
 * The Lua scripts of a fair queue (./fair-queue.ts): every change of its keys is one script, so adds, takes and
 * removals by any number of processes are atomic against each other, and the queue's state lives in the queue store
 * (it outlasts a restart of any dispatcher, and of the store with its append-only file).
 *
 * Keys under the base `B` (one hash slot on a cluster: the prefix carries the braces):
 * - `B:m` hash job id → `lane \n tenant \n group` of each waiting job, `B:p` the same of each taken job; `B:d` hash
 *   job id → its data (JSON), waiting or taken; `B:t` sorted set of taken job ids scored by their lease's end (ms on
 *   the store's clock);
 * - `B:r:<lane>` the ring of tenants with waiting jobs in that lane; `B:g:<lane>:<len>:<tenant>` the ring of that
 *   tenant's groups with waiting jobs; `B:j:<lane>:<len>:<tenant>:<group>` the group's jobs in order (`<len>` is the
 *   tenant's length, so no tenant and group pair reads as another);
 * - `B:n:<lane>` waiting jobs per lane; `B:s` interactive takes in a row while background jobs waited; `B:e` sorted
 *   set of the ids of the last ended jobs (at most `keep`) scored by their end: like BullMQ's kept jobs, an add of such
 *   an id adds nothing until it is removed;
 * - channel `B:wake`: published at each add, so idle consumers take at once.
 *
 * Lanes are `i` (interactive) and `b` (background). A take serves the interactive lane first, but after `streak`
 * interactive takes in a row with background jobs waiting it serves one background job (never starved); within a
 * lane it takes the next tenant of the ring, that tenant's next group, and the group's oldest job, and puts tenant
 * and group back at the end of their rings when they still have jobs (round robin, O(1) per take).
 *
 * Source: docs/decisions.md D24 § 1 (fair turns between organizations and agents, interactive first, across
 * dispatchers and restarts).
 */

const common = `
local b = KEYS[1]
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function groupsKey(lane, tenant) return b .. ':g:' .. lane .. ':' .. #tenant .. ':' .. tenant end
local function jobsKey(lane, tenant, group)
  return b .. ':j:' .. lane .. ':' .. #tenant .. ':' .. tenant .. ':' .. group
end
local function parsePlace(place) return string.match(place, '^([^\\n]*)\\n([^\\n]*)\\n(.*)$') end
-- Puts job id to wait in its place (lane, tenant, group): at the tail (RPUSH) or head (LPUSH) of its group,
-- the group and the tenant joining their rings when they had nothing waiting.
local function putWaiting(id, place, push)
  local lane, tenant, group = parsePlace(place)
  redis.call('HSET', b .. ':m', id, place)
  if redis.call(push, jobsKey(lane, tenant, group), id) == 1 then
    if redis.call('RPUSH', groupsKey(lane, tenant), group) == 1 then
      redis.call('RPUSH', b .. ':r:' .. lane, tenant)
    end
  end
  redis.call('INCR', b .. ':n:' .. lane)
end
local function isTaken(id)
  local lease = redis.call('ZSCORE', b .. ':t', id)
  return lease and tonumber(lease) > now()
end
`;

/** ARGV: id, lane (`i`|`b`), tenant, group, data. Returns 1 when added, 0 when the id waits or is taken already. */
export const ADD_SCRIPT = `${common}
local id, lane, tenant, group = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if redis.call('HEXISTS', b .. ':m', id) == 1 or isTaken(id) or redis.call('ZSCORE', b .. ':e', id) then return 0 end
redis.call('HSET', b .. ':d', id, ARGV[5])
putWaiting(id, lane .. '\\n' .. tenant .. '\\n' .. group, 'RPUSH')
redis.call('PUBLISH', b .. ':wake', '1')
return 1
`;

/**
 * ARGV: leaseMs, streak. Returns `{id, data}` of the job taken (its lease started), or false when none waits. First
 * puts the taken jobs whose lease ended (their process stopped) back at the head of their group, as BullMQ moves a
 * stalled job back to wait (`B:p` keeps a taken job's place); a job added again meanwhile is not doubled.
 */
export const TAKE_SCRIPT = `${common}
local at = now()
local lapsed = redis.call('ZRANGEBYSCORE', b .. ':t', '-inf', at, 'LIMIT', 0, 100)
for _, old in ipairs(lapsed) do
  redis.call('ZREM', b .. ':t', old)
  local place = redis.call('HGET', b .. ':p', old)
  redis.call('HDEL', b .. ':p', old)
  if redis.call('HEXISTS', b .. ':m', old) == 0 then
    if place then
      putWaiting(old, place, 'LPUSH')
    else
      redis.call('HDEL', b .. ':d', old)
    end
  end
end
local ni, nb = redis.call('LLEN', b .. ':r:i'), redis.call('LLEN', b .. ':r:b')
if ni == 0 and nb == 0 then return false end
local streak = tonumber(redis.call('GET', b .. ':s') or '0')
local lane = 'b'
if ni > 0 and (nb == 0 or streak < tonumber(ARGV[2])) then lane = 'i' end
if lane == 'i' and nb > 0 then redis.call('INCR', b .. ':s') else redis.call('SET', b .. ':s', 0) end
local ring = b .. ':r:' .. lane
local tenant = redis.call('LPOP', ring)
local groups = groupsKey(lane, tenant)
local group = redis.call('LPOP', groups)
local jobs = jobsKey(lane, tenant, group)
local id = redis.call('LPOP', jobs)
if redis.call('LLEN', jobs) > 0 then redis.call('RPUSH', groups, group) end
if redis.call('LLEN', groups) > 0 then redis.call('RPUSH', ring, tenant) end
redis.call('HSET', b .. ':p', id, redis.call('HGET', b .. ':m', id))
redis.call('HDEL', b .. ':m', id)
redis.call('DECR', b .. ':n:' .. lane)
redis.call('ZADD', b .. ':t', at + tonumber(ARGV[1]), id)
return {id, redis.call('HGET', b .. ':d', id) or 'null'}
`;

/** ARGV: id, leaseMs. Extends a taken job's lease; returns 1, or 0 when it is not taken. */
export const RENEW_SCRIPT = `${common}
if not redis.call('ZSCORE', b .. ':t', ARGV[1]) then return 0 end
redis.call('ZADD', b .. ':t', now() + tonumber(ARGV[2]), ARGV[1])
return 1
`;

/**
 * ARGV: id, keep. Ends a taken job (its data is kept when the id waits again) and keeps its id among the last `keep`
 * ended jobs (`B:e`).
 */
export const DONE_SCRIPT = `${common}
if not redis.call('ZSCORE', b .. ':t', ARGV[1]) then return 0 end
redis.call('ZREM', b .. ':t', ARGV[1])
redis.call('HDEL', b .. ':p', ARGV[1])
redis.call('ZADD', b .. ':e', now(), ARGV[1])
redis.call('ZREMRANGEBYRANK', b .. ':e', 0, -(tonumber(ARGV[2]) + 1))
if redis.call('HEXISTS', b .. ':m', ARGV[1]) == 0 then redis.call('HDEL', b .. ':d', ARGV[1]) end
return 1
`;

/** ARGV: id. Removes a waiting or ended job; returns 1, or 0 when there is none (a taken job stays). */
export const REMOVE_SCRIPT = `${common}
local id = ARGV[1]
if redis.call('ZREM', b .. ':e', id) == 1 then return 1 end
local place = redis.call('HGET', b .. ':m', id)
if not place then return 0 end
local lane, tenant, group = parsePlace(place)
local jobs, groups = jobsKey(lane, tenant, group), groupsKey(lane, tenant)
redis.call('LREM', jobs, 1, id)
if redis.call('LLEN', jobs) == 0 then
  redis.call('LREM', groups, 0, group)
  if redis.call('LLEN', groups) == 0 then redis.call('LREM', b .. ':r:' .. lane, 0, tenant) end
end
redis.call('HDEL', b .. ':m', id)
if not isTaken(id) then redis.call('HDEL', b .. ':d', id) end
redis.call('DECR', b .. ':n:' .. lane)
return 1
`;

/** ARGV: id. Returns `pending` (waiting, or taken within its lease), `ended` (kept ended) or `missing`. */
export const STATE_SCRIPT = `${common}
if redis.call('HEXISTS', b .. ':m', ARGV[1]) == 1 or isTaken(ARGV[1]) then return 'pending' end
if redis.call('ZSCORE', b .. ':e', ARGV[1]) then return 'ended' end
return 'missing'
`;

/** Returns `{interactive waiting, background waiting, taken within their lease, ended ids kept}`. */
export const COUNTS_SCRIPT = `${common}
return {
  tonumber(redis.call('GET', b .. ':n:i') or '0'), tonumber(redis.call('GET', b .. ':n:b') or '0'),
  redis.call('ZCOUNT', b .. ':t', now(), '+inf'), redis.call('ZCARD', b .. ':e'),
}
`;
