-- Closed-loop GET of random keys over the prefilled space (about 80% hits, 20% misses).
local common = dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
setup = common.seed
init = function(args) common.init_random() end
request = common.get_request
done = common.done
