-- Closed-loop range reads of exactly BENCH_RANGE_RECORDS consecutive prefilled records,
-- starting at a random prefilled key.
local common = dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
setup = common.seed
init = function(args) common.init_random() end
request = function()
  local first = math.random(0, common.keys - common.range_records)
  return wrk.format("GET", "/v0/entities?start=" .. common.key(first)
    .. "&end=" .. common.key(first + common.range_records))
end
done = common.done
