"""The errors commerce-proxy raises on bad input; each message reads "what / where / expected vs found".

The command line turns any of them into one line on stderr and exit code 2, never a traceback.
"""

# What a `record` stopped at once says with its KeyboardInterrupt when its journal holds what it recorded.
JOURNAL_KEPT = "the journal keeps what was recorded"


class CommerceProxyError(Exception):
    """Base of every error that the command line reports as one line."""


class CassetteFormatError(CommerceProxyError):
    """A cassette file is not a cassette: bad YAML, a wrong type, a missing key, a newer version."""


class JournalError(CommerceProxyError):
    """A recording journal cannot be read or recovered."""


class NotRecordable(JournalError):
    """An exchange the journal will not hold: its reader would refuse it (a target that is not a path,
    a status outside 200-599, a header that breaks its line, a body that cannot be written as is)."""


class BodyTooLarge(CommerceProxyError):
    """A compressed body that inflates past the limit in force (a gzip bomb of 1 MB is 1 GB)."""


class UsageError(CommerceProxyError):
    """The command line asked for something that cannot be done (a mode that would lose data...)."""


class SettingError(UsageError):
    """One setting's value is unusable, said in the core's words: `setting` is its name in the Python
    API (`latency`, `fault`, `match_on`, `match_ignore_json`, `origin`). An adapter says it with its own
    spelling of the setting (`--latency`, `--commerce-match-on`) through `named`."""

    def __init__(self, setting: str, problem: str, value: str | None = None) -> None:
        self.setting = setting
        self.problem = problem
        self.value = value
        super().__init__(self._said(setting))

    def _said(self, name: str) -> str:
        return (
            f"{name} {self.value!r}: {self.problem}" if self.value is not None else f"{name}: {self.problem}"
        )

    def named(self, spellings: dict[str, str]) -> UsageError:
        """The same error with the setting spelled as the adapter's user wrote it (unchanged when
        `spellings` has no entry for it)."""
        return UsageError(self._said(spellings.get(self.setting, self.setting)))


class RuleFileError(CommerceProxyError):
    """A rule file, shape schema, project config or baseline is unusable: unknown check, bad parameter..."""


class ContractError(CommerceProxyError):
    """A published API specification or an overlay on it that cannot be used (a parse error, a broken
    `$ref`, a malformed overlay): one line naming the file and the JSON pointer."""


class StillIndexing(CommerceProxyError):
    """An answer that needs the part of an index still being built (the UI's text search of a large
    set of cassettes opened offline): asked again once it is done."""
