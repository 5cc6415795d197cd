#!/bin/bash
# dtls_repro.sh - shows the sanitizer runtime bug behind LeakSanitizer's tracer crashes at
# exit (README.md, "Sanitizers"): a library loaded with dlopen whose __thread variables are
# touched by 64 threads, then exit() with the threads alive. With the default
# intercept_tls_get_addr=1, the __tls_get_addr interceptor of GCC <= 13 / clang <= 16 reads
# ASan's chunk header as a pre-2.25 glibc TLS header and LeakSanitizer's tracer faults on the
# range it makes up; with intercept_tls_get_addr=0 the run is clean, and a heap block whose
# only pointer is in dynamic TLS is still not reported as leaked.
# Usage: tests/lsan/dtls_repro.sh [CC]   (default gcc). Exit 0 when both behave as above.
set -eu
cc=${1:-gcc}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/lib.c" <<'C'
#include <stdlib.h>
__thread char *tls_ptr;   /* the only pointer to a heap block */
__thread char pad[40];
void touch(void) { if (!tls_ptr) tls_ptr = malloc(100); pad[0]++; }
C
cat > "$dir/main.c" <<'C'
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static void (*touch)(void);
static pthread_barrier_t bar;
static void *run(void *a) { (void)a; touch(); pthread_barrier_wait(&bar); pthread_barrier_wait(&bar); return NULL; }
int main(int argc, char **argv) {
  (void)argc;
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) { fprintf(stderr, "%s\n", dlerror()); return 2; }
  touch = (void (*)(void))dlsym(h, "touch");
  pthread_barrier_init(&bar, NULL, 65);
  pthread_t t[64];
  for (int i = 0; i < 64; i++) pthread_create(&t[i], NULL, run, NULL);
  pthread_barrier_wait(&bar);
  exit(0); /* leak check with the threads and their TLS alive */
}
C
"$cc" -O1 -g -fPIC -shared -o "$dir/lib.so" "$dir/lib.c"
"$cc" -O1 -g -fsanitize=address -o "$dir/main" "$dir/main.c" -ldl -lpthread
status=0
if ASAN_OPTIONS=detect_leaks=1 "$dir/main" "$dir/lib.so" > "$dir/on.txt" 2>&1; then
  echo "intercept_tls_get_addr=1: no crash (this runtime has the fix)"
else
  grep -m1 "Tracer caught signal" "$dir/on.txt" || true
  grep -q "LeakSanitizer has encountered a fatal error" "$dir/on.txt" && echo "intercept_tls_get_addr=1: LeakSanitizer's tracer crashed"
fi
if ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0 "$dir/main" "$dir/lib.so" > "$dir/off.txt" 2>&1; then
  echo "intercept_tls_get_addr=0: clean exit, no leak reported"
else
  echo "intercept_tls_get_addr=0: FAILED:"; cat "$dir/off.txt"; status=1
fi
exit $status
