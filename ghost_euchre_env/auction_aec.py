"""What the auction-only AEC envs (``ghost_bidding_v0``, ``classic_bidding_v0``) add to a variant's env.

:class:`AuctionAEC` is mixed in before a variant's ``raw_env``: its engine is an
auction view (:class:`ghost_euchre_env.bidding.AuctionGame` or
``ClassicAuctionGame``) over the card-play policy given first, and the card
plays made inside a step are kept for ``render()`` and for
``snapshot``/``restore`` (all-or-nothing steps). :func:`auction_raw_env_class`
makes a variant's (its ``*_bidding_v0`` module's ``raw_env``) from its declaration.
"""

from . import options, variants
from .aec import EuchreAEC
from .bidding import AuctionView
from .cards import card_name


def plays_text(plays, names, per_trick):
    """The card plays of one game as text, one line per trick: 'trick 1: player_0 A♥, player_1 9♥, ...'.

    plays: ``AuctionGame.last_plays`` of a batch of one game; names: the agent of each seat;
    per_trick: the cards of a trick (fewer than the seats when a lone hand sits a partner out).
    """
    cards = [f"{names[int(seats[0])]} {card_name(int(card[0]))}" for _, seats, card in plays]
    return [
        f"trick {k // per_trick + 1}: " + ", ".join(cards[k : k + per_trick])
        for k in range(0, len(cards), per_trick)
    ]


class AuctionAEC(EuchreAEC):
    """The auction-only env of a variant: ``raw_env(card_play="heuristic", render_mode=None, episode="deal", ...)``.

    A variant's class (:func:`auction_raw_env_class`) lists this class before the variant's
    ``raw_env`` and sets ``auction_game`` (the auction view's class).
    """

    auction_game: type[AuctionView]
    game: AuctionView

    door_kind = "auction_aec"

    def __init__(self, card_play=options.DEFAULT_POLICY, render_mode=None, **given):
        super().__init__(render_mode, card_play=card_play, **given)

    @classmethod
    def door(cls) -> options.Door:
        name = f"{cls.metadata['name']}.env()"
        return options.Door(name, cls.door_kind, cls.auction_game.ENGINE, cls.agent_names)

    def make_game(self, chosen: options.EnvOptions):
        """The auction view of the variant's engine, its card play built from ``card_play``."""
        engine = self.auction_game.ENGINE
        play = options.resolve_policy(chosen.card_play, chosen.rules, engine, chosen.policy_seed)
        return self.auction_game(play, chosen.episode, chosen.reward, **chosen.rules)

    def cards_per_trick(self, last_deal):
        """The cards of each trick of the deal ``last_deal`` (an info's ``last_deal``): the
        declaration's ``cards_per_trick``, else one a seat."""
        count = self.variant.cards_per_trick
        if last_deal is None or count is None:
            return len(self.agent_names)
        return count(last_deal)

    def reset(self, seed=None, options=None):
        plays = self.game.last_plays
        self.game.last_plays = []  # before the reset: render_mode "human" renders in it
        try:
            super().reset(seed, options)
        except BaseException:
            self.game.last_plays = plays
            raise

    def snapshot(self):
        return {**super().snapshot(), "last_plays": list(self.game.last_plays)}

    def restore(self, saved):
        saved = dict(saved)
        self.game.last_plays = saved.pop("last_plays")
        super().restore(saved)

    def render(self):
        plays = self.game.last_plays
        if self.render_mode is None or not plays:
            return super().render()
        deal = self._last_deal
        per_trick = self.cards_per_trick(deal)
        lines = [
            "card play since the last decision:",
            *plays_text(plays, self.agent_names, per_trick),
        ]
        if deal is not None:
            lines.append(f"deal {deal['deal']} scored: points {deal['points']}")
        extra = "\n".join(lines)
        if self.render_mode == "human":
            super().render()
            print(extra, end="\n\n")
            return None
        return f"{super().render()}\n{extra}"


def auction_raw_env_class(variant) -> type[AuctionAEC]:
    """The variant's auction-only PettingZoo AEC env class (its ``*_bidding_v0`` module's ``raw_env``)."""
    module = variant.door_name("auction_aec")[0]
    game_env = variant.door("aec")
    auction_game = variant.door("auction_game")
    title = variant.title[0].upper() + variant.title[1:]
    article = "an" if auction_game.__name__[0] in "AEIOU" else "a"
    written = f"""{title}, auction only: ``{game_env.metadata["name"]}.raw_env`` on {article} :class:`{auction_game.__name__}`.

See the module docstring. ``game`` is the {auction_game.__name__} (its ``engine`` the {variant.engine.__name__}).
"""
    return variant.door_class(
        "auction_aec",
        (AuctionAEC, game_env),
        written,
        metadata={**game_env.metadata, "name": module.rpartition(".")[2]},
        auction_game=auction_game,
    )


def pettingzoo_module(module_name):
    """What the variant's auction-only PettingZoo module ``module_name`` holds: (``raw_env``, ``env``)."""
    raw_env = variants.of_pettingzoo(module_name).door("auction_aec")
    return raw_env, raw_env.wrapped
