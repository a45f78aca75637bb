-- wrk script: each thread walks the request paths of the file named after "--", starting at a
-- random line, so consecutive requests hit different rows and no cache can help.
local paths = {}
local i = 0

function init(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  i = math.random(#paths)
end

function request()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
