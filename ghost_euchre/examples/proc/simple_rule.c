/* A bot for ghost-euchre's line protocol (version 1) with a simple rule, read by field names:

   - auction (Ghost Hand): the lowest bid with four cards or more of a suit in "hand",
     else pass; classic: pass when it may (it orders up only when it must);
   - naming trump (or a suit): its longest suit in "hand";
   - card play: leading (nothing in "current_trick"), its highest legal card by
     rank; following, its lowest legal card;
   - anything else: the first legal action.

   Build:  cc -O2 -o simple_rule simple_rule.c
   Play:   ghost-euchre-evaluate proc:./simple_rule heuristic random --games 60
           ghost-euchre-evaluate proc:./simple_rule heuristic random heuristic --variant classic

   Messages come compact (no spaces outside strings, keys in a fixed order),
   so each game's part of a decision line is read as text (docs/protocol.md). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char RANKS[] = "9TJQKA"; /* low to high */

/* The text of the JSON value after "name": in [from, to), as [start, end); 0 if absent. */
static int field(const char *from, const char *to, const char *name, const char **start,
                 const char **end) {
    char key[64];
    snprintf(key, sizeof key, "\"%s\":", name);
    const char *at = strstr(from, key);
    if (at == NULL || at >= to) return 0;
    at += strlen(key);
    int depth = 0;
    const char *p = at;
    for (; p < to; p++) { /* a value ends at the comma or brace outside brackets and strings */
        if (*p == '"') p = strchr(p + 1, '"');
        else if (*p == '[') depth++;
        else if (*p == ']') depth--;
        else if ((*p == ',' || *p == '}') && depth == 0) break;
    }
    *start = at;
    *end = p;
    return 1;
}

/* How many strings the JSON text [start, end) holds whose second letter is suit (0: any). */
static int strings(const char *start, const char *end, char suit) {
    int count = 0;
    for (const char *p = start; p < end; p = strchr(p + 1, '"') + 1) {
        p = memchr(p, '"', (size_t)(end - p));
        if (p == NULL) break;
        if (suit == 0 || p[2] == suit) count++;
    }
    return count;
}

/* Print this game's action, chosen from its part of the line [game, next). */
static void choose(const char *game, const char *next) {
    const char *legal, *legal_end, *phase, *phase_end, *hand, *hand_end, *trick, *trick_end;
    field(game, next, "legal", &legal, &legal_end);
    int play = field(game, next, "phase", &phase, &phase_end) &&
               strncmp(phase, "\"play\"", 6) == 0;
    /* the legal names: ["9C","JH",...] */
    const char *names[40] = {NULL};
    int count = 0;
    for (const char *p = legal; p < legal_end && count < 40; p++) {
        if (*p == '"') {
            names[count++] = p + 1;
            p = strchr(p + 1, '"');
        }
    }
    const char *pick = names[0];
    if (!play) {
        int held[4] = {0}, longest = 0; /* cards of each suit C, D, H, S in "hand" */
        if (field(game, next, "hand", &hand, &hand_end)) {
            for (int s = 0; s < 4; s++) {
                held[s] = strings(hand, hand_end, "CDHS"[s]);
                if (held[s] > longest) longest = held[s];
            }
        }
        int most = -1;
        for (int i = count - 1; i >= 0; i--) { /* names are in action order: the first wins */
            const char *name = names[i];
            if (strncmp(name, "pass\"", 5) == 0) pick = name;
        }
        for (int i = count - 1; i >= 0 && longest >= 4; i--) {
            if (strncmp(names[i], "bid ", 4) == 0) pick = names[i]; /* the lowest bid */
        }
        for (int i = 0; i < count && strncmp(pick, "pass\"", 5) != 0; i++) {
            /* naming a suit ("trump H", "suit H"): the longest in hand */
            int suit_action = strncmp(names[i], "trump ", 6) == 0 || strncmp(names[i], "suit ", 5) == 0;
            if (!suit_action) continue;
            int suit = (int)(strchr("CDHS", strchr(names[i], ' ')[1]) - "CDHS");
            if (held[suit] > most) {
                most = held[suit];
                pick = names[i];
            }
        }
    } else {
        int leading = !(field(game, next, "current_trick", &trick, &trick_end) &&
                        strings(trick, trick_end, 0) > 0);
        for (int i = 0; i < count; i++) { /* cards are 2 letters: rank, suit */
            int rank = (int)(strchr(RANKS, names[i][0]) - RANKS);
            int chosen = (int)(strchr(RANKS, pick[0]) - RANKS);
            if (leading ? rank > chosen : rank < chosen) pick = names[i];
        }
    }
    printf("\"%.*s\"", (int)(strchr(pick, '"') - pick), pick);
}

int main(void) {
    char *line = NULL;
    size_t capacity = 0;
    while (getline(&line, &capacity, stdin) != -1) { /* until our input closes */
        if (strncmp(line, "{\"type\":\"hello\"", 15) == 0) {
            printf("{\"name\":\"simple-rule\"}\n");
        } else if (strncmp(line, "{\"type\":\"decide\"", 16) == 0) {
            printf("{\"actions\":[");
            const char *game = strstr(line, "{\"game\":");
            int games = 0;
            while (game != NULL) {
                const char *next = strstr(game + 1, "{\"game\":");
                printf("%s", games++ ? "," : "");
                choose(game, next ? next : game + strlen(game));
                game = next;
            }
            printf("]}\n");
        } /* game_over and match_over need no answer */
        fflush(stdout);
    }
    free(line);
    return 0;
}
