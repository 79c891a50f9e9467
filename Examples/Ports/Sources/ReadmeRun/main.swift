// Links every example with the products it imports: a module that a product does not link fails here, at link time,
// not in an adopter's app. (The examples' functions are compiled, not run: they listen to this host's network.)
print("the ports and the README's examples build and link")
