/* qemu_insn_count.c - a qemu-user TCG plugin (plugin API version 1: Debian 12's QEMU 7.2,
 * which ships no plugins) that counts the guest instructions executed and prints the total
 * at exit: instruction counts of arm64 code run under qemu-aarch64, independent of the
 * host's speed and load (docs/boards.md, "8-bit convs on arm64"). Declares only the few API
 * entry points it uses (qemu resolves them when it loads the plugin). A host tool, not
 * built by meson:
 *   gcc -O2 -shared -fPIC -o build/libqemu_insn_count.so scripts/qemu_insn_count.c
 *   qemu-aarch64 -cpu cortex-a76 -L build/arm64-sysroot -plugin build/libqemu_insn_count.so \
 *     build/arm64/tools/tflite-benchmark MODEL --runs N --warmup 0
 * (per invoke: the difference of two run counts, divided by theirs). */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr,
                                              uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t insns; /* the count: one guest process, one plugin instance */

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
  (void)id;
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns, qemu_plugin_tb_n_insns(tb));
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
  (void)id, (void)p;
  fprintf(stderr, "insn_count: %" PRIu64 " guest instructions\n", insns);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                                               int argc, char **argv)
{
  (void)info, (void)argc, (void)argv;
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
  qemu_plugin_register_atexit_cb(id, at_exit, NULL);
  return 0;
}
