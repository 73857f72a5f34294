local words = {}
local text = "the quick brown fox jumps over the lazy dog the end"
for w in text:gmatch("%a+") do words[w] = (words[w] or 0) + 1 end
local keys = {}
for k in pairs(words) do keys[#keys + 1] = k end
table.sort(keys, function(a, b) if words[a] ~= words[b] then return words[a] > words[b] end return a < b end)
for _, k in ipairs(keys) do print(string.format("%-6s %d", k, words[k])) end
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
print("fib(20) =", fib(20))
local t = setmetatable({}, {__index = function(_, k) return k * 2 end})
print(t[21], ("x"):rep(5, "-"), string.gsub("hello world", "o", "0"))
local co = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i * 10) end end)
print(co(), co(), co())
print(select(2, pcall(error, {code = 7})).code, pcall(string.rep))
print(select("#", table.unpack({1, 2, 3})), math.maxinteger // 3, 7 % -3, 2^10)
