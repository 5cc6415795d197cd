/* cpu_pthreadpool.h - XNNPACK's pthreadpool calls on cpu_pool (cpu_pthreadpool.c). */
#ifndef CPU_PTHREADPOOL_H
#define CPU_PTHREADPOOL_H

/* 1 when a pthreadpool_parallelize_* call from XNNPACK reaches cpu_pthreadpool.c, so a
 * cpu_pool may be handed to XNNPACK as its pthreadpool_t; 0 when another definition comes
 * first (an application linked with libpthreadpool itself). */
int cpu_pthreadpool_interposed(void);

#endif
