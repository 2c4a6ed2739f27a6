/* kernel/user/regs.c — `spawn regs [ROUNDS]`: does a switch keep every
 * register a task owns?  (docs/tasks.md, "What a switch saves")
 *
 * Each round loads a known pattern into EBX, ECX, EDX, ESI, EDI and EBP,
 * sets the carry and direction flags, loads the user data segment into
 * FS and GS, spins long enough for the tick to preempt it now and then,
 * and checks that all of it is still there.  It prints how many rounds
 * it ran, how many times it was switched out meanwhile, and how many
 * rounds found a register changed (which must be none).
 */
#include "ulib.h"

#define ROUNDS_DEFAULT  2000
#define SPIN            20000           /* loop iterations per round: ~0.1 ms */
#define USER_DS         0x23            /* include/arch/trap.h: GDT_USER_DATA | 3 */
#define REGS_STR(x)     #x
#define REGS_SPELL(x)   REGS_STR(x)

/* One round: 0 if every register came back as it was loaded.  EAX counts
 * the spin down (DEC leaves the carry alone), so the carry set before the
 * loop must survive every interrupt inside it.  A function of its own in
 * assembly: it loads every register, EBP and the callee-saved ones
 * included, which inline assembly may not. */
uint32_t regs_round(uint32_t seed);
__asm__(".text\n"
	"regs_round:\n\t"
	"push %ebp\n\t"
	"push %ebx\n\t"
	"push %esi\n\t"
	"push %edi\n\t"
	"mov 20(%esp), %eax\n\t"      /* the seed */
	"push %eax\n\t"               /* [esp] = seed */
	"mov $" REGS_SPELL(USER_DS) ", %ebx\n\t"
	"mov %ebx, %fs\n\t"
	"mov %ebx, %gs\n\t"
	"lea 1(%eax), %ebx\n\t"
	"lea 2(%eax), %ecx\n\t"
	"lea 3(%eax), %edx\n\t"
	"lea 4(%eax), %esi\n\t"
	"lea 5(%eax), %edi\n\t"
	"lea 6(%eax), %ebp\n\t"
	"mov $" REGS_SPELL(SPIN) ", %eax\n\t"
	"std\n\t"
	"stc\n"
	"1:\n\t"
	"dec %eax\n\t"
	"jnz 1b\n\t"
	"setnc %al\n\t"               /* EAX (0 after the loop) = carry lost */
	"pushf\n\t"
	"cld\n\t"
	"push %eax\n\t"               /* [esp] = carry lost, [esp+4] = flags */
	"mov 4(%esp), %eax\n\t"
	"shr $10, %eax\n\t"
	"and $1, %eax\n\t"
	"xor $1, %eax\n\t"            /* direction flag lost */
	"or %eax, (%esp)\n\t"
	"mov 8(%esp), %eax\n\t"       /* the seed */
	"sub %eax, %ebx\n\t" "xor $1, %ebx\n\t"
	"sub %eax, %ecx\n\t" "xor $2, %ecx\n\t"
	"sub %eax, %edx\n\t" "xor $3, %edx\n\t"
	"sub %eax, %esi\n\t" "xor $4, %esi\n\t"
	"sub %eax, %edi\n\t" "xor $5, %edi\n\t"
	"sub %eax, %ebp\n\t" "xor $6, %ebp\n\t"
	"mov %ebx, %eax\n\t"
	"or %ecx, %eax\n\t" "or %edx, %eax\n\t" "or %esi, %eax\n\t"
	"or %edi, %eax\n\t" "or %ebp, %eax\n\t"
	"movw %fs, %cx\n\t" "movzwl %cx, %ecx\n\t"
	"xor $" REGS_SPELL(USER_DS) ", %ecx\n\t" "or %ecx, %eax\n\t"
	"movw %gs, %cx\n\t" "movzwl %cx, %ecx\n\t"
	"xor $" REGS_SPELL(USER_DS) ", %ecx\n\t" "or %ecx, %eax\n\t"
	"or (%esp), %eax\n\t"         /* the flags lost */
	"add $12, %esp\n\t"           /* carry lost, flags, seed */
	"pop %edi\n\t"
	"pop %esi\n\t"
	"pop %ebx\n\t"
	"pop %ebp\n\t"
	"ret\n");

int regs_main(const char *args);
int regs_main(const char *args)
{
	int ok;
	uint64_t rounds = u_parse_u64(args, 0, &ok);
	if (args[0] && (!ok || rounds == 0 || rounds > 1000000)) {
		u_puts("usage: spawn regs [ROUNDS(1..1000000)]\n");
		return 2;
	}
	if (!args[0])
		rounds = ROUNDS_DEFAULT;
	struct task_times before, after;
	sys_times(&before);

	uint64_t corrupted = 0;
	for (uint64_t i = 0; i < rounds; i++)
		if (regs_round((uint32_t)(i * 0x01010101u) ^ 0x5a5a0000u))
			corrupted++;
	sys_times(&after);
	u_puts("regs: ");
	u_put_u64(rounds);
	u_puts(" rounds, switched out ");
	u_put_u64(after.switches - before.switches);
	u_puts(" times, ");
	u_put_u64(corrupted);
	u_puts(" with a register changed\n");
	return corrupted ? 1 : 0;
}
