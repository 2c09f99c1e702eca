import pytest

from nertz.referee.cards import JOKER, Card, Rank, Suit, standard_deck
from nertz.referee.errors import CardError


@pytest.mark.parametrize(
    "text, rank, suit",
    [("7S", Rank.SEVEN, Suit.SPADES), ("TH", Rank.TEN, Suit.HEARTS), ("10h", Rank.TEN, Suit.HEARTS),
     ("AD", Rank.ACE, Suit.DIAMONDS), ("kc", Rank.KING, Suit.CLUBS), (" QS ", Rank.QUEEN, Suit.SPADES)],
)
def test_parse(text, rank, suit):
    card = Card.parse(text)
    assert (card.rank, card.suit) == (rank, suit)


def test_notation_round_trips_for_every_card():
    deck = standard_deck()
    assert len(deck) == 52 and len(set(deck)) == 52
    for card in deck:
        assert Card.parse(str(card)) == card


def test_joker():
    assert Card.parse("JK") is JOKER or Card.parse("JK") == JOKER
    assert str(JOKER) == "JK" and JOKER.is_joker and not JOKER.is_ace and JOKER.next_up() is None
    assert standard_deck(jokers=2).count(JOKER) == 2


@pytest.mark.parametrize("bad", ["", "7", "1S", "7X", "11H", "JKX", "ZZ", 7, None])
def test_bad_notation_is_a_clear_error(bad):
    with pytest.raises(CardError) as exc:
        Card.parse(bad)
    assert "card" in str(exc.value)


def test_next_up_and_colours():
    assert Card.parse("5H").next_up() == Card.parse("6H")
    assert Card.parse("KS").next_up() is None
    assert Card.parse("5H").is_red and Card.parse("5D").is_red and not Card.parse("5S").is_red
