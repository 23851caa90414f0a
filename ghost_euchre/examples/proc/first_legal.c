/* A bot for ghost-euchre's line protocol (version 1) that plays the first legal action.

   Build:  cc -O2 -o first_legal first_legal.c
   Play:   ghost-euchre-evaluate proc:./first_legal heuristic random --games 60

   One JSON message a line on standard input, one answer line on standard
   output (docs/protocol.md). Messages come compact (no spaces outside
   strings, keys in a fixed order), so this bot reads them as text. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    char *line = NULL;
    size_t capacity = 0;
    while (getline(&line, &capacity, stdin) != -1) { /* until our input closes */
        if (strncmp(line, "{\"type\":\"hello\"", 15) == 0) {
            printf("{\"name\":\"first-legal\"}\n");
        } else if (strncmp(line, "{\"type\":\"decide\"", 16) == 0) {
            /* each game ends with "legal":["NAME",...]: answer the first NAME of each */
            printf("{\"actions\":[");
            const char *at = line;
            int games = 0;
            while ((at = strstr(at, "\"legal\":[\"")) != NULL) {
                at += strlen("\"legal\":[");
                const char *end = strchr(at + 1, '"');
                printf("%s%.*s", games++ ? "," : "", (int)(end - at + 1), at);
                at = end;
            }
            printf("]}\n");
        } /* game_over and match_over need no answer */
        fflush(stdout);
    }
    free(line);
    return 0;
}
