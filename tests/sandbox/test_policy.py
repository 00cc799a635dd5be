"""`sandbox:` settings from hostile YAML: a valid policy or a ConfigError naming the key, nothing else."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from arena.errors import ConfigError
from arena.sandbox.policy import POLICY_KEYS, SandboxPolicy, policy_from_mapping
import pytest

pytestmark = pytest.mark.sandbox

scalars = st.none() | st.booleans() | st.integers(-5, 10_000) | st.text(max_size=8) | st.lists(st.text(max_size=6), max_size=3)
values = scalars | st.dictionaries(st.sampled_from(sorted(POLICY_KEYS)) | st.text(max_size=6), scalars, max_size=5)


@given(values)
def test_any_yaml_value_gives_a_valid_policy_or_a_named_error(value):
    try:
        policy = policy_from_mapping(value, "entrants[0].sandbox")
    except ConfigError as exc:
        assert str(exc).startswith("entrants[0].sandbox")
        return
    assert isinstance(policy, SandboxPolicy)
    assert policy.processes >= 4 and policy.open_files >= 16 and policy.scratch_mb > 0 and policy.file_size_mb > 0
    assert all(path.startswith("/") for path in policy.extra_ro)
