print("reach")
