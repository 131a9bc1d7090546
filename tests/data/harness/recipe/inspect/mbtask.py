from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import Score, Target, accuracy, includes, mean, scorer
from inspect_ai.solver import TaskState, generate
import inspect_ai.model._model as _model

# Offline: mockllm counts tokens with tiktoken, whose encoding file is downloaded on first use;
# count words instead (token counts in these logs are therefore word counts).
_model.count_text_tokens = lambda text: max(1, len(text.split()))


@scorer(metrics=[mean()])
def overlap():
    """Share of the target's words found in the output (a number in [0, 1])."""
    async def score(state: TaskState, target: Target) -> Score:
        words = target.text.lower().split()
        out = state.output.completion.lower()
        return Score(value=sum(w in out for w in words) / len(words))
    return score


@task
def mb_mock():
    return Task(
        dataset=[
            Sample(id="greet", input="Say: default output", target="Default output"),
            Sample(id="capital", input="Capital of France?", target="Paris"),
            Sample(id="model", input="Which model are you?", target="mockllm model"),
            Sample(id="sum", input="What is 2 + 3?", target="5"),
        ],
        solver=[generate()],
        scorer=[includes(), overlap()],
        epochs=2,
    )
