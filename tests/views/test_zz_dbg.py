def test_dbg(page):
    page.go("#/hierarchy?N=1000&T=16")
    print(page.inner_text("walk-step-4"))
    print([(e.attributes) for e in page.all('[data-when="edge"]')])
