"""What nvidia-smi says of the machine's GPUs, for the measured files' records (shared by the scripts here)."""
import subprocess


def nvidia_smi(fields):
    """(stdout, None) of `nvidia-smi --query-gpu=FIELDS` as CSV without header, or (None, why) when it cannot run."""
    try:
        return subprocess.run(["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=30).stdout.strip(), None
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"unavailable: {e}"
