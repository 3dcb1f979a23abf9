print("stage-compositor: not yet")
