"""``iolab serve``: the what-if, plan and results pages, served on this machine.

- :mod:`.jobs` every call into iolab the pages make, each as the command line makes it;
- :mod:`.app` the routes and the guard in front of them (token, Host, Origin, body bound);
- :mod:`.server` uvicorn, and the first line that says where;
- ``assets/`` the page: HTML, CSS and plain JavaScript, inlined into one response.
"""
