# script.tcl — tclsh's input for make realworld: strings, lists, a dict, a regexp, formatting.
set words [split "the quick brown fox jumps over the lazy dog" " "]
set counts [dict create]
foreach word $words {
    dict incr counts $word
}
foreach word [lsort [dict keys $counts]] {
    puts [format "%-6s %d" $word [dict get $counts $word]]
}
if {[regexp {(q[a-z]+) (b[a-z]+)} [join $words " "] -> first second]} {
    puts "match: $first $second"
}
puts [string toupper [string range [join $words ""] 0 11]]
puts [expr {[llength $words] * 3 + 1}]
