-- Closed-loop 50/50 mix: GETs as in get.lua, PUTs overwriting prefilled keys so that the
-- key space (and the hit ratio) stays constant during the run.
local common = dofile(os.getenv("BENCH_LUA_DIR") .. "/common.lua")
setup = common.seed
init = function(args) common.init_random() end
request = function()
  if math.random() < 0.5 then
    return common.get_request()
  end
  return common.put_request(common.key(math.random(0, common.keys - 1)))
end
done = common.done
