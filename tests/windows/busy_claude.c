/* Test set-up for the Windows job (.ci/windows), never shipped: a "claude" that starts a
 * long-running child of its own (as claude's shell tool starts a background command), writes
 * both pids to the file named by BUSY_CLAUDE_PIDS, then ignores its stdin and sleeps, so only
 * claude-acp's Job object can end the two of them. `busy_claude child` is the child. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        Sleep(1000 * 1000);
        return 0;
    }
    char self[MAX_PATH];
    GetModuleFileNameA(NULL, self, MAX_PATH);
    char cmd[MAX_PATH + 16];
    snprintf(cmd, sizeof cmd, "\"%s\" child", self);
    STARTUPINFOA si = {sizeof si};
    PROCESS_INFORMATION pi;
    if (!CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) {
        fprintf(stderr, "busy_claude: CreateProcess failed: %lu\n", GetLastError());
        return 1;
    }
    const char *pids = getenv("BUSY_CLAUDE_PIDS");
    if (pids != NULL) {
        FILE *f = fopen(pids, "w");
        if (f != NULL) {
            fprintf(f, "%lu %lu\n", GetCurrentProcessId(), pi.dwProcessId);
            fclose(f);
        }
    }
    Sleep(1000 * 1000);
    return 0;
}
