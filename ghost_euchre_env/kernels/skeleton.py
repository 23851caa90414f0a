"""The kernels every variant shares: dealing, bit sets, action checks, observation blocks.

Each kernel is a loop over the games (or rows) of a batch, compiled once by Numba
(``@njit(cache=True)``); with ``NUMBA_DISABLE_JIT=1`` they run as the plain Python
they are. A kernel takes the engine's state as its records (``state``: a NumPy structured
array, one record a game, ``s = state[g]`` game g's, fields by name) and the engine's
settings as one record (``settings``, read as ``rules = settings[0]``), as
:mod:`ghost_euchre_env.core` declares them: hands are uint32 card masks (bit c = card c
held), seats int8 (-1 none).

- Dealing (``docs/RULES.md``, "The deal"): a deal is a pure function of the
  episode's key and the deal's number, a SplitMix64 hash per card
  (:mod:`ghost_euchre_env.dealing` states the scheme; :func:`random_deck` is
  its one implementation, :func:`next_deal_row` picks a chosen or a random deal).
- Episodes and deal ends, the parts every variant shares ("The end", ``max_deals``):
  :func:`open_episode` (its key, its first dealer, scores 0), :func:`ended_in_order`
  (the rows of a deal summary), :func:`deal_rewards`, :func:`end_or_go_on` (terminate,
  truncate, deal again with the next dealer, or reset). A variant's ``end_deals``
  kernel calls them once per ended deal, between its scoring and its dealing.
- Legal masks: :func:`unpack_rows` turns the bit sets of ``legal_bits`` into
  bool rows; :func:`first_illegal` checks a batch of actions against them;
  :func:`vector_step` (inlined into a variant's ``step_and_observe``) checks, steps and
  observes for the vector API in one call, :func:`observe_every` observes every game;
  :func:`draw_set_bits` and :func:`draw_legal` draw a legal action per row
  (the random policy's draw).
- Observations: :func:`put_bits` writes a card mask as 24 0/1 floats
  (:func:`put_masks` a row's consecutive card blocks at once),
  :func:`relative` turns an absolute seat into the observer's relative one.
- Playouts: :func:`play_until_deals_end` steps games with a compiled policy's actions until
  a deal ends (inlined into a policy's per-variant playout kernel, e.g. the heuristic's);
  :func:`replay_and_weigh` replays games through given actions, weighing them by a compiled
  model of the other seats (``search``'s inference).
- Keys: :func:`mix64` (SplitMix64's finaliser), :func:`mix64_each` over an array.
"""

import contextlib

import numpy as np
from numba import config, njit

NUM_CARDS = 24
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)
_DEALER_SALT = np.uint64(0xD1B54A32D192ED03)
_NOTHING = contextlib.nullcontext()
_JIT_OFF = bool(getattr(config, "DISABLE_JIT", False))  # NUMBA_DISABLE_JIT=1: kernels run as Python


@njit(cache=True, inline="always")
def mix64(x):
    """SplitMix64's finaliser of one uint64 (wrapping arithmetic)."""
    x = np.uint64(x)
    x ^= x >> np.uint64(30)
    x *= _MUL1
    x ^= x >> np.uint64(27)
    x *= _MUL2
    x ^= x >> np.uint64(31)
    return x


@njit(cache=True)
def mix64_each(values):
    """Every value of a uint64[M] array through :func:`mix64`, in place (the NumPy-side callers'
    kernel: :func:`ghost_euchre_env.dealing.mix64`)."""
    for i in range(len(values)):
        values[i] = mix64(values[i])


def wrapping():
    """The context a dealing kernel is called in: its uint64 arithmetic wraps by design. Compiled,
    nothing to do; with the JIT off (NumPy scalars, which warn of each overflow) the warnings
    are silenced."""
    return np.errstate(over="ignore") if _JIT_OFF else _NOTHING


@njit(cache=True, inline="always")
def random_deck(episode_key, deal_number, keys, deck):
    """deck (int8[24]) = a uniform random permutation of the cards for (episode key, deal
    number); keys (uint64[24]) = the cards' random keys.

    Card k gets the random key ``mix(mix(deal key + (k + 1) * golden))`` with its id in the
    low 5 bits (so the keys differ), the deal key being ``mix(episode key ^ mix(deal number *
    MUL2))``; the deck is the cards in the order of their keys. A card's place is the count of
    the keys below its own: for 24 keys a branch-free count is faster than a sort.
    """
    low = np.uint64(31)
    deal_key = mix64(np.uint64(episode_key) ^ mix64(np.uint64(deal_number) * _MUL2))
    for card in range(NUM_CARDS):
        keys[card] = (mix64(deal_key + np.uint64(card + 1) * _GOLDEN) & ~low) | np.uint64(card)
    for card in range(NUM_CARDS):
        place = 0
        for other in range(NUM_CARDS):
            place += keys[other] < keys[card]
        deck[place] = card


@njit(cache=True, inline="always")
def next_deal_row(s, chosen, num_hands, hand_size, keys, deck, row):
    """A game's next deal as a row (uint32[W]: how a chosen deal is stored), and count it
    (``s.deal_number += 1``); s: the game's record, chosen: its chosen deals (uint32[K, W]).

    A chosen deal while any is left (``chosen[deal number]``, ``s.num_chosen`` of them), else
    a random deck of the episode's key (:func:`random_deck`) split into ``num_hands`` hands of
    ``hand_size`` consecutive cards: row[h] the mask of hand h and, where W has one more slot,
    the id of the card after them (classic's upcard). keys, deck: :func:`random_deck`'s.
    """
    number = s.deal_number
    if number < s.num_chosen:
        for k in range(len(row)):
            row[k] = chosen[number, k]
    else:
        random_deck(s.episode_key, number, keys, deck)
        for hand in range(num_hands):
            mask = np.uint32(0)
            for k in range(hand * hand_size, (hand + 1) * hand_size):
                mask |= np.uint32(1) << np.uint32(deck[k])
            row[hand] = mask
        if len(row) > num_hands:
            row[num_hands] = deck[num_hands * hand_size]
    s.deal_number = number + 1


@njit(cache=True, inline="always")
def open_episode(s, chosen_dealer, num_seats):
    """A game (its record ``s``) opens its episode ``s.episode`` (dealing its first deal is the
    variant's kernel): its key ``mix(key ^ mix(episode + golden))``, its dealer
    (``chosen_dealer``, or for -1 one drawn uniformly from the episode's key), scores 0, no
    deal dealt yet."""
    key = mix64(s.keys ^ mix64(np.uint64(s.episode) + _GOLDEN))
    s.episode_key = key
    if chosen_dealer >= 0:
        s.dealer = chosen_dealer
    else:
        s.dealer = mix64(key ^ _DEALER_SALT) % np.uint64(num_seats)
    for column in range(len(s.scores)):
        s.scores[column] = 0
    s.deal_number = 0


@njit(cache=True)
def open_episodes(games, dealers, num_seats, state):
    """:func:`open_episode` of the games ``games`` (int64[M]) of ``state`` (the records),
    dealt by ``dealers`` (int8[M], -1: random)."""
    for i in range(len(games)):
        open_episode(state[games[i]], dealers[i], num_seats)


@njit(cache=True)
def ended_in_order(ended, played_out, games):
    """games (int64[M]) = the games whose deal ended (``ended[g]`` not 0, int8[N]; M of them),
    the played-out ones (``ended[g] == played_out``) first, then the thrown-in ones, each in
    game order: the rows of a step's deal summary."""
    i = 0
    for played in (True, False):
        for g in range(len(ended)):
            if ended[g] != 0 and (ended[g] == played_out) == played:
                games[i] = g
                i += 1


@njit(cache=True, inline="always")
def end_or_go_on(g, s, points, over, auto_reset, rules, over_phase, outcome):
    """After game g's deal ended and was scored (``points``, added to its record ``s``'s
    scores), its rewards (:func:`deal_rewards`), then the game ends or goes on; True: game g
    deals next.

    over: the game is over by the rules (it terminates); else a game that has dealt
    ``rules.max_deals`` deals is truncated, and any other deals again, the next seat dealing.
    A finished game gets ``over_phase`` and no player to act or, with ``auto_reset``, opens
    its next episode (random deals, a random dealer) and deals. rules: the game's settings;
    outcome: the step's (rewards float32[N, S], terminated bool[N], truncated bool[N]), set here.
    """
    rewards, terminated, truncated = outcome
    num_seats = len(rules.score_column)
    deal_rewards(rewards[g], points, over, rules, s.scores)
    cut = not over and s.deal_number >= rules.max_deals
    terminated[g] = over
    truncated[g] = cut
    if not (over or cut):
        s.dealer = (s.dealer + 1) % num_seats
        return True
    if auto_reset:
        s.episode += 1
        s.num_chosen = 0
        open_episode(s, -1, num_seats)
        return True
    s.phase = over_phase
    s.player = -1
    return False


@njit(cache=True, inline="always")
def deal_rewards(rewards, points, over, rules, scores):
    """A game's rewards (float32[S], by seat) for a deal that ended with ``points`` (int32[W]
    by score column; ``rules.score_column``: int[S] each seat's). Reward "points": each seat
    its column's points; "win" (``rules.reward_is_win``), once the game is ``over``: 1.0 to
    each seat of the top score's column (``scores``, int32[W]; the first, in a tie),
    ``rules.loss_reward`` to the others."""
    score_column = rules.score_column
    if not rules.reward_is_win:
        for seat in range(len(score_column)):
            rewards[seat] = points[score_column[seat]]
    elif over:
        winner = 0
        for column in range(1, len(scores)):
            if scores[column] > scores[winner]:
                winner = column
        for seat in range(len(score_column)):
            rewards[seat] = 1.0 if score_column[seat] == winner else rules.loss_reward


@njit(cache=True)
def unpack_rows(bits, width):
    """bool[N, width]: bit a of ``bits[g]`` (unsigned ints[N]) as row g."""
    out = np.empty((len(bits), width), np.bool_)
    unpack_into(bits, out)
    return out


@njit(cache=True, inline="always")
def unpack_into(bits, out):
    """:func:`unpack_rows` into ``out`` (bool[N, width]), every cell written."""
    for g in range(len(bits)):
        value = np.uint64(bits[g])
        for a in range(out.shape[1]):
            out[g, a] = (value >> np.uint64(a)) & np.uint64(1)


@njit(cache=True)
def pack_rows(flags):
    """uint64[N]: row g of ``flags`` (bool[N, W], W <= 64) as a bit set, bit a = flags[g, a]."""
    bits = np.zeros(flags.shape[0], np.uint64)
    for g in range(flags.shape[0]):
        value = np.uint64(0)
        for a in range(flags.shape[1]):
            value |= np.uint64(flags[g, a]) << np.uint64(a)
        bits[g] = value
    return bits


@njit(cache=True, inline="always")
def count_bits(value):
    """The number of set bits of the uint64 ``value`` (additions of bit counts, no multiply)."""
    value = np.uint64(value)
    value = value - ((value >> np.uint64(1)) & np.uint64(0x5555555555555555))
    value = (value & np.uint64(0x3333333333333333)) + (
        (value >> np.uint64(2)) & np.uint64(0x3333333333333333)
    )
    value = (value + (value >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    value += value >> np.uint64(8)
    value += value >> np.uint64(16)
    value += value >> np.uint64(32)
    return int(value & np.uint64(0x7F))


@njit(cache=True)
def draw_set_bits(bits, draws, none):
    """int64[N]: a set bit of each ``bits[g]`` (uint64[N]), drawn by ``draws[g]`` (float64 in [0, 1)).

    The bit is number ``floor(draws[g] * set bits)`` counted from the lowest (``none`` for no
    set bit): uniform over the set bits when the draws are.
    """
    skip = np.empty(len(bits), np.int64)
    rounds = 0
    for g in range(len(bits)):  # how many of its lowest set bits each row skips
        skip[g] = int(draws[g] * np.float64(count_bits(bits[g])))
        rounds = max(rounds, skip[g])
    chosen = np.empty(len(bits), np.int64)
    for g in range(len(bits)):
        # Clear the skipped bits, in the same number of rounds in every row (a select, not
        # a loop of the row's own length: no branch to mispredict), then take the lowest left.
        value = np.uint64(bits[g])
        for k in range(rounds):
            value = value & (value - np.uint64(1)) if k < skip[g] else value
        chosen[g] = count_bits((value ^ (value - np.uint64(1))) >> np.uint64(1)) if value else none
    return chosen


@njit(cache=True)
def draw_legal(mask, draws):
    """int64[N]: a legal action of each row of ``mask`` (bool[N, A], A <= 64), drawn by ``draws[g]``
    (float64 in [0, 1)): :func:`draw_set_bits` of the packed rows (64 for a row with none)."""
    return draw_set_bits(pack_rows(mask), draws, 64)


@njit(cache=True)
def first_illegal(actions, mask):
    """The first row whose action (int64[N]) is out of range or not set in ``mask`` (bool[N, A]); -1 if none."""
    num_actions = mask.shape[1]
    for g in range(len(actions)):
        action = actions[g]
        if action < 0 or action >= num_actions or not mask[g, action]:
            return g
    return -1


@njit(cache=True)
def first_over(player):
    """The first game with no player to act (int8[N], -1: its game is over), -1 if none."""
    for g in range(len(player)):
        if player[g] < 0:
            return g
    return -1


@njit(cache=True, inline="always")
def observe_every(state, settings, legal_bits, observe_into, out):
    """Every game's legal mask, its player to act and its observation by that player, written
    into ``out`` = (mask bool[N, A], obs float32[N, D], player int64[N]); legal_bits,
    observe_into: the variant's kernels (``observe_into(games, seats, state, settings, obs)``)."""
    mask, obs, player = out
    for g in range(len(state)):
        player[g] = state[g].player
    unpack_into(legal_bits(state, settings), mask)
    observe_into(np.empty(0, np.int64), player, state, settings, obs)


@njit(cache=True, inline="always")
def vector_step(actions, legal, state, settings, ended, out, step, legal_bits, observe_into):
    """The vector API's step in one call: the actions (int64[N]) checked against ``legal``
    (bool[N, A]), the step, then, if no deal ended, :func:`observe_every` into ``out``.

    Returns how many deals ended (the caller ends them, then observes), or ``-1 - g`` when
    game g's action is the first that is illegal (then nothing is changed). step, legal_bits,
    observe_into: the variant's kernels.
    """
    game = first_illegal(actions, legal)
    if game >= 0:
        return -1 - game
    count = step(actions, state, settings, ended)
    if not count:
        observe_every(state, settings, legal_bits, observe_into, out)
    return count


@njit(cache=True, inline="always")
def play_until_deals_end(actions, state, settings, step, legal_mask, observe, policy, policy_args):
    """Step every game (all live) with ``actions`` (int64[N], overwritten), then with a compiled
    policy's, step after step, until some game's deal ends; returns (how many deals ended in
    that last step, ended int8[N]: the step kernel's marks of it).

    state, settings: the engine's records and settings; step, legal_mask, observe: the
    variant's kernels, called as ``step(actions, state, settings, ended)``,
    ``legal_mask(state, settings)``, ``observe(games, seats, state, settings)``. policy: a
    policy's kernel, ``policy(obs, mask, *policy_args, out int64[M])``, asked for the games
    with more than one legal action only; a game with one plays it (the lowest legal id, as
    ``mask.argmax``). With ``settings``' ``checked``, a policy's illegal action stops the loop
    before it is stepped: it returns (-1 - that game, ended), the action left in ``actions``.
    """
    ended = np.empty(len(actions), np.int8)
    count = step(actions, state, settings, ended)
    while count == 0:
        mask = legal_mask(state, settings)
        choice = np.empty(len(actions), np.int64)
        chosen = 0
        for g in range(len(actions)):
            legal = 0
            for action in range(mask.shape[1] - 1, -1, -1):
                if mask[g, action]:
                    actions[g] = action
                    legal += 1
            if legal > 1:
                choice[chosen] = g
                chosen += 1
        if chosen:
            games = choice[:chosen]
            seats = np.empty(chosen, np.int64)
            for i in range(chosen):
                seats[i] = state[games[i]].player
            chosen_actions = np.zeros(chosen, np.int64)
            obs = observe(games, seats, state, settings)
            policy(obs, mask[games], *policy_args, chosen_actions)
            for i in range(chosen):
                actions[games[i]] = chosen_actions[i]
            if settings[0].checked:
                bad = first_illegal(chosen_actions, mask[games])
                if bad >= 0:
                    return -1 - games[bad], ended
        count = step(actions, state, settings, ended)
    return count, ended


@njit(cache=True, inline="always")
def replay_and_weigh(actions, state, settings, step, legal_mask, observe, weigh, weigh_args):
    """float64[M]: every game replayed through its actions (int64[M, T]: a row ends at its first
    -1), one step a column, each action of a seat other than 0 that had a choice weighed by a
    compiled model of that seat: the sum of the log-weights ``weigh`` gives them. An action
    illegal in its game makes the game's total -inf, and the game goes on with its lowest legal
    action.

    state, settings, step, legal_mask, observe: as :func:`play_until_deals_end` (the step
    kernel leaves a game whose action is -1 as it is: a row that has ended). weigh: a model's
    kernel, ``weigh(obs, mask, taken int64[K], legal int64[K], *weigh_args, out float64[K])``,
    given the weighed decisions' observations (by their seat to act), masks, the actions taken
    there and their counts of legal actions.
    """
    num_games, length = actions.shape
    totals = np.zeros(num_games)
    ended = np.empty(num_games, np.int8)
    stepped = np.empty(num_games, np.int64)
    weighed = np.empty(num_games, np.int64)
    choices = np.empty(num_games, np.int64)
    done = np.zeros(num_games, np.bool_)
    for column in range(length):
        mask = legal_mask(state, settings)
        live, count = 0, 0
        for g in range(num_games):
            done[g] = done[g] or actions[g, column] < 0
            stepped[g] = -1
            if done[g]:
                continue
            live += 1
            action, legal, lowest = actions[g, column], 0, -1
            for a in range(mask.shape[1] - 1, -1, -1):
                if mask[g, a]:
                    legal += 1
                    lowest = a
            if not mask[g, action]:
                totals[g] = -np.inf
                action = lowest
            elif state[g].player != 0 and legal > 1:
                weighed[count] = g
                choices[count] = legal
                count += 1
            stepped[g] = action
        if live == 0:
            return totals
        if count:
            games = weighed[:count]
            seats = np.empty(count, np.int64)
            taken = np.empty(count, np.int64)
            for i in range(count):
                seats[i] = state[games[i]].player
                taken[i] = stepped[games[i]]
            weights = np.empty(count, np.float64)
            obs = observe(games, seats, state, settings)
            weigh(obs, mask[games], taken, choices[:count], *weigh_args, weights)
            for i in range(count):
                totals[games[i]] += weights[i]
        step(stepped, state, settings, ended)
    return totals


@njit(cache=True, inline="always")
def one_hot_weights(chosen, taken, legal, log_weight, out):
    """out[i] = log_weight[1 if a model chose the action taken else 0, legal[i]] (the weights of a
    model that takes one action: chosen, taken, legal int64[K]; log_weight float64[2, A + 1])."""
    for i in range(len(out)):
        out[i] = log_weight[int(chosen[i] == taken[i]), legal[i]]


@njit(cache=True)
def bad_seat(seats, num_players):
    """True if any observer seat (int64[N]) is outside 0..num_players - 1."""
    for seat in seats:  # noqa: SIM110 (a loop: what Numba compiles best)
        if seat < 0 or seat >= num_players:
            return True
    return False


@njit(cache=True, inline="always")
def relative(seat, observer, num_players):
    """The observer's relative seat of absolute seat ``seat`` (0: the observer); -1 for no seat."""
    if seat < 0:
        return -1
    return (seat - observer + num_players) % num_players


@njit(cache=True, inline="always")
def put_bits(out, g, start, mask):
    """out[g, start + c] = bit c of ``mask`` (a uint32 card mask) as 0.0 / 1.0, for c in 0..23."""
    value = np.uint32(mask)
    for card in range(NUM_CARDS):
        out[g, start + card] = np.float32((value >> np.uint32(card)) & np.uint32(1))


@njit(cache=True, inline="always")
def put_masks(out, g, start, masks):
    """out[g, start + 24 * b + c] = bit c of ``masks[b]`` (int64 card masks) as 0.0 / 1.0: the
    consecutive card blocks of an observation row, written in one regular loop (which the
    compiler turns into vector code: a third faster than a call of :func:`put_bits` a block)."""
    for b in range(len(masks)):
        value = masks[b]
        for card in range(NUM_CARDS):
            out[g, start + b * NUM_CARDS + card] = np.float32((value >> card) & 1)


@njit(cache=True, inline="always")
def put_zeros(out, g, start, stop):
    """out[g, start:stop] = 0.0 (a loop: no slice made per row)."""
    for cell in range(start, stop):
        out[g, cell] = 0.0


@njit(cache=True, inline="always")
def card_bit(card):
    """uint32: the mask of card ``card`` (0..23); 0 for no card (-1)."""
    return np.uint32(1) << np.uint32(card) if card >= 0 else np.uint32(0)


@njit(cache=True, inline="always")
def put_one(out, g, start, index):
    """out[g, start + index] = 1.0 unless index < 0 (a one-hot field whose value is none)."""
    if index >= 0:
        out[g, start + int(index)] = (
            1.0  # int(): an int8 index must not wrap (JIT off: NumPy scalars)
        )


@njit(cache=True, inline="always")
def ratio(numerator, denominator):
    """float32(numerator / denominator), rounded once (as NumPy's float32 division)."""
    return np.float32(np.float64(numerator) / np.float64(denominator))
