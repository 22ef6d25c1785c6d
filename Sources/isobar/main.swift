print("isobar")
