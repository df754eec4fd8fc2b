from fae_rl.state import FaeState
