-- Closed-loop PUT of 100-byte values under random keys outside the prefilled space,
-- so the store keeps growing as it would under fresh writes. The seed mixes in the start time:
-- with the fixed seeds of the other scenarios, every run (warm-up, each round) wrote the same
-- key sequence again, and all but the first measured overwrites.
local common = dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
setup = common.seed
init = function(args) common.init_random_per_run() end
request = function()
  return common.put_request(string.format("put%010d", math.random(0, 2147483646)))
end
done = common.done
