/* shell_internal.h - what the console's files (kernel/shell/) share: each command
 * family's commands, for the table in shell.c, and the few helpers another family uses.
 * A command returns -1 for bad usage (the shell then prints its usage line). Everything
 * here runs in the init thread (the shell), so nothing is locked. */
#ifndef SHELL_INTERNAL_H
#define SHELL_INTERNAL_H

/* shell_tasks.c */
int cmd_ps(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_why(int argc, char **argv);
int cmd_spawn(int argc, char **argv);
int cmd_kill(int argc, char **argv);
int cmd_taskset(int argc, char **argv);
int cmd_renice(int argc, char **argv);

/* shell_cpus.c */
int cmd_cpus(int argc, char **argv);
int cmd_topology(int argc, char **argv);
int cmd_cpu(int argc, char **argv);
int cmd_domains(int argc, char **argv);
int cmd_sched(int argc, char **argv);
int cmd_features(int argc, char **argv);
int cmd_eas(int argc, char **argv);
int cmd_sysctl(int argc, char **argv);
int cmd_cpufreq(int argc, char **argv);
int cmd_cpuidle(int argc, char **argv);
int cmd_energy(int argc, char **argv);
void print_cpus(void); /* cpus' table, also top's */

/* shell_run.c */
int cmd_run(int argc, char **argv);
int cmd_cgexec(int argc, char **argv);
int cmd_trace(int argc, char **argv);

/* shell_cgroup.c */
int shell_cgroup_cgcreate(int argc, char **argv);
int shell_cgroup_cgclassify(int argc, char **argv);
int shell_cgroup_cgdelete(int argc, char **argv);
int shell_cgroup_cgroups(int argc, char **argv);

/* shell.c: a key typed while a run goes on, kept for the next line. */
void shell_keep_key(int c);

#endif
