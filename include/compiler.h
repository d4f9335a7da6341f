/* compiler.h - forced into every kernel object (-include, see the Makefile).
 * Everything binds inside the one kernel image: telling the compiler so makes
 * every symbol reference PC-relative. Without it, -fpie reaches extern
 * symbols through GOT entries that hold link-time addresses. */
#pragma GCC visibility push(hidden)
