-- A mixed Lua workload for the trace benchmarks: calls, tables, strings, sorting.
-- SCALE (a global set by the driver, default 1) multiplies the work.
local scale = SCALE or 1

local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local function strings(n)
  local parts = {}
  for i = 1, n do
    parts[#parts + 1] = string.format("%d:%s", i, string.rep("x", i % 7))
  end
  local s = table.concat(parts, ",")
  local count = 0
  for w in s:gmatch("%d+:x+") do count = count + #w end
  return count
end

local function sorting(n)
  local t = {}
  local x = 12345
  for i = 1, n do
    x = (x * 1103515245 + 12345) % 2147483648
    t[i] = x
  end
  table.sort(t)
  return t[1] + t[n]
end

local function objects(n)
  local acc = 0
  for i = 1, n do
    local o = setmetatable({v = i}, {__index = function(_, k) return #k end})
    acc = acc + o.v + o.missing
  end
  return acc
end

local total = 0
for _ = 1, scale do
  total = total + fib(22) + strings(4000) + sorting(8000) + objects(8000)
end
RESULT = total
