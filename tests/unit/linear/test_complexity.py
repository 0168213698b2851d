"""The fake prices a request as Linear's rate-limiting documentation says: 0.1 a
property, 1 an object, a connection's children times its page (50 by default), rounded
up."""

from __future__ import annotations

import pytest

from ralph.linear.fake import complexity, linear_schema
from ralph.linear.fake._limits import LeakyBucket

from ...conftest import FakeClock


def cost(text: str, **variables: object) -> int:
    return complexity(linear_schema(), text, variables)


def test_properties_cost_a_tenth_and_the_total_is_rounded_up():
    # viewer (an object, 1) + two properties (0.2) = 1.2 -> 2
    assert cost("query { viewer { id name } }") == 2


def test_each_object_costs_one():
    # viewer 1 + organization 1 + two properties 0.2 = 2.2 -> 3
    assert cost("query { viewer { id organization { id } } }") == 3


def test_a_connection_multiplies_every_child_by_its_page():
    # issues 1 + 10 x (nodes 1 + id 0.1 + pageInfo 1 + hasNextPage 0.1) = 23
    text = "query { issues(first: 10) { pageInfo { hasNextPage } nodes { id } } }"
    assert cost(text) == 23


def test_a_connection_without_a_page_counts_fifty():
    # issues 1 + 50 x (nodes 1 + id 0.1) = 56
    assert cost("query { issues { nodes { id } } }") == 56


def test_a_page_given_as_a_variable_is_read_from_the_variables():
    text = "query Q($first: Int) { issues(first: $first) { nodes { id } } }"
    assert cost(text, first=20) == 23  # 1 + 20 x 1.1
    assert cost(text) == 56  # no value: Linear's default page


def test_a_page_of_none_costs_only_the_connection():
    text = "query Q($first: Int) { issues(first: $first) { nodes { id } } }"
    assert cost(text, first=0) == 1
    assert cost("query { issues(first: 0) { nodes { id } } }") == 1


def test_last_pages_backwards_at_the_same_price():
    assert cost("query { issues(last: 20) { nodes { id } } }") == 23


def test_fragments_are_priced_where_they_are_spread():
    # issues 1 + 10 x (nodes 1 + the fragment: id 0.1 + state 1 + name 0.1) = 23
    text = (
        "query { issues(first: 10) { nodes { ...F } } }\nfragment F on Issue { id state { name } }"
    )
    assert cost(text) == 23


def test_nested_connections_multiply():
    # issues 1 + 10 x (nodes 1 + labels 1 + 5 x (nodes 1 + name 0.1)) = 1 + 10 x 7.5 = 76
    text = "query { issues(first: 10) { nodes { labels(first: 5) { nodes { name } } } } }"
    assert cost(text) == 76


def test_a_mutation_is_priced_by_its_selection():
    text = 'mutation { issueArchive(id: "x") { success entity { id archivedAt } } }'
    # issueArchive 1 + success 0.1 + entity 1 + two properties 0.2 = 2.3 -> 3
    assert cost(text) == 3


def test_a_leaky_bucket_refills_at_its_limit_an_hour_and_resets_when_full():
    clock = FakeClock(1_800_000_000.0)
    bucket = LeakyBucket(1500, clock)
    bucket.take(750)
    assert bucket.reset_at() == clock() + 1800  # 750 short at 1,500 an hour
    clock.advance(2.4)
    assert bucket.refill() == pytest.approx(751)  # one request back every 2.4 s
    headers = bucket.headers("requests")
    assert headers["x-ratelimit-requests-remaining"] == "751"
    assert int(headers["x-ratelimit-requests-reset"]) == pytest.approx((clock() + 749 * 2.4) * 1000)
    clock.advance(3600)
    assert bucket.refill() == 1500  # never more than the limit
