divert(-1)
define(`upcase', `translit(`$*', `a-z', `A-Z')')
define(`forloop', `pushdef(`$1', `$2')_forloop($@)popdef(`$1')')
define(`_forloop', `$4`'ifelse($1, `$3', `', `define(`$1', incr($1))$0($@)')')
define(`greet', `Hello, upcase($1)!')
divert(0)dnl
greet(`world')
forloop(`i', `1', `6', `i squared is eval(i * i)
')dnl
len(`substr(abcdefgh, 2, 3)') substr(`abcdefgh', 2, 3) index(`hello world', `wor')
regexp(`GNUs not Unix', `\w\(\w+\)$', `*** \& *** \1 ***')
patsubst(`a cat sat on a mat', `[cs]at', `dog')
format(`%-8s|%5d|%x', `left', 42, 255)
ifdef(`greet', `greet is defined', `greet is undefined')
