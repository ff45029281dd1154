-- Shared helpers for the wrk scenario scripts (loaded with dofile; see bench/lib/load.sh).
-- Every wrk thread has its own Lua state, so nothing here is shared between threads.
local common = {}

-- Keys are zero-padded so that their byte order equals their numeric order; the range
-- scenario relies on that to ask for exactly 10k consecutive prefilled records.
function common.key(i)
  return string.format("key%07d", i)
end

-- Numeric settings come from the environment so one script serves every run size.
function common.env_number(name, default)
  local v = os.getenv(name)
  if v == nil or v == "" then return default end
  return tonumber(v)
end

-- A fixed 100-byte value (the scenario's record size); its content does not matter.
common.value = string.rep("v", common.env_number("BENCH_VALUE_BYTES", 100))
common.keys = common.env_number("BENCH_KEYS", 100000)
-- GETs draw from 125% of the prefilled key space: about 80% hits and 20% misses.
common.get_space = math.floor(common.keys * 1.25)
common.range_records = common.env_number("BENCH_RANGE_RECORDS", 10000)

local thread_counter = 0
-- Seeds each thread differently but reproducibly, so runs are comparable.
function common.seed(thread)
  thread_counter = thread_counter + 1
  thread:set("seed", 7919 * thread_counter)
end

-- Runs in the thread's own Lua state, where setup() left the global `seed`.
function common.init_random()
  math.randomseed(rawget(_G, "seed") or 1)
end

-- As init_random, but differently in every run (the seed includes the second wrk started in), for
-- scenarios whose requests must not repeat the previous run's.
function common.init_random_per_run()
  math.randomseed((rawget(_G, "seed") or 1) + 104729 * os.time())
end

function common.get_request()
  return wrk.format("GET", "/v0/entity?id=" .. common.key(math.random(0, common.get_space - 1)))
end

function common.put_request(key)
  return wrk.format("PUT", "/v0/entity?id=" .. key, nil, common.value)
end

-- Prints one machine-readable line that bench/report/fragment.py picks out of wrk's output.
-- Latencies are in microseconds, as wrk measures them.
function common.done(summary, latency, requests)
  local e = summary.errors
  local parts = {
    string.format('"requests":%d', summary.requests),
    string.format('"duration_us":%d', summary.duration),
    string.format('"bytes":%d', summary.bytes),
    string.format('"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}',
      e.connect, e.read, e.write, e.status, e.timeout),
    string.format('"latency_us":{"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d,"mean":%.1f}',
      latency:percentile(50), latency:percentile(90), latency:percentile(99),
      latency:percentile(99.9), latency.max, latency.mean),
  }
  io.write("BENCH_WRK_JSON {" .. table.concat(parts, ",") .. "}\n")
end

return common
