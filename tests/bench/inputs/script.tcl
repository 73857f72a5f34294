# script.tcl — tests/bench/campaigns.sh's input for tclsh8.6: a little of everything an
# interpreter allocates for (words, lists, dicts, arrays, procs, regexp, errors), small output.
set text "the quick brown fox jumps over the lazy dog the end"
foreach word [split $text] { dict incr counts $word }
foreach {word count} [lsort -stride 2 -index 1 -integer -decreasing [dict get $counts]] {
    puts [format "%-6s %d" $word $count]
}
proc fib {n} { expr {$n < 2 ? $n : [fib [expr {$n - 1}]] + [fib [expr {$n - 2}]]} }
puts "fib(15) = [fib 15]"
array set squares {}
for {set i 0} {$i < 20} {incr i} { set squares($i) [expr {$i * $i}] }
puts "squares: [array size squares], sum [tcl::mathop::+ {*}[lmap {k v} [array get squares] {set v}]]"
regexp {(\w+)@(\w+)\.org} "write to alice@example.org today" -> user host
puts "$user at $host, [string map {o 0 e 3} "hello developer"], [string repeat ab 3]"
namespace eval stack {
    variable items {}
    proc push {x} { variable items; lappend items $x }
    proc pop {} { variable items; set x [lindex $items end]; set items [lrange $items 0 end-1]; return $x }
}
foreach x {1 2 3} { stack::push [expr {$x * 10}] }
puts "pop [stack::pop] [stack::pop], left $stack::items"
if {[catch {error "boom" "" {APP CODE 7}} message options]} {
    puts "caught $message: [dict get $options -errorcode]"
}
puts [join [lsort -unique [lmap c [split "mississippi" ""] {string toupper $c}]] ","]
