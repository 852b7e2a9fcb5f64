"""The book's shared trainer: one loop generic over model, loss and optimiser, with callbacks (logging,
evaluation, auxiliary losses, activation statistics, EMA weights, checkpoints), gradient clipping, learning-rate
schedules as pure functions of the step, and checkpoints in the book's cache that resume and branch bit for bit.

    from icmlbook.training import Trainer, TrainerConfig, WarmupCosine, LossLogger, Evaluate

See :mod:`icmlbook.training._trainer` for the order of operations in one update.
"""

from ._callbacks import (EMA, ActivationStats, AuxiliaryLoss, Callback, Checkpoint, Evaluate, LambdaCallback,
                         LossLogger)
from ._convergence import Convergence, PlateauTest, convergence_guard, plateau_check, plateau_from_curve
from ._data import ShuffledBatches, full_batch
from ._schedules import WSD, Constant, Schedule, WarmupCosine, schedule_values
from ._trainer import CheckpointMismatch, Trainer, TrainerConfig, checkpoint_safe, clip_grad_norm, from_checkpoint_safe

__all__ = [
    "Trainer", "TrainerConfig", "CheckpointMismatch", "clip_grad_norm", "checkpoint_safe", "from_checkpoint_safe",
    "Callback", "LambdaCallback", "LossLogger", "Evaluate", "AuxiliaryLoss", "ActivationStats", "EMA", "Checkpoint",
    "Schedule", "Constant", "WarmupCosine", "WSD", "schedule_values",
    "ShuffledBatches", "full_batch",
    "PlateauTest", "Convergence", "plateau_check", "plateau_from_curve", "convergence_guard",
]
