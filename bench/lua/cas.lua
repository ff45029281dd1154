-- Closed-loop conditional PUTs (If-Match on the version this thread last wrote) against the
-- key's current version, or plain PUTs of the same keys with BENCH_CAS_PLAIN=1: the baseline.
-- Run with one connection per thread (-tN -cN): then request() and response() alternate, and
-- the thread knows which key an answer is for. Each thread cycles through a key set of its own
-- (BENCH_CAS_KEYS_PER_THREAD prefilled keys from key <thread index * that>), so conditional
-- writes never contend: this measures what the compare-and-set costs, not contention. A key's
-- first conditional write uses If-Match: * (it exists), later ones the ETag its last 201 named.
local common = dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
local per_thread = common.env_number("BENCH_CAS_KEYS_PER_THREAD", 1000)
local plain = os.getenv("BENCH_CAS_PLAIN") == "1"

local thread_counter = 0
setup = function(thread)
  thread:set("index", thread_counter)
  thread_counter = thread_counter + 1
end

local tags = {}
local next_key = 0
local current

init = function(args)
  index = rawget(_G, "index") or 0
end

request = function()
  current = common.key(index * per_thread + next_key)
  next_key = (next_key + 1) % per_thread
  if plain then
    return wrk.format("PUT", "/v0/entity?id=" .. current, nil, common.value)
  end
  return wrk.format("PUT", "/v0/entity?id=" .. current, {["If-Match"] = tags[current] or "*"}, common.value)
end

response = function(status, headers, body)
  if status == 201 and not plain then
    tags[current] = headers["ETag"] or headers["etag"]
  end
end

done = common.done
