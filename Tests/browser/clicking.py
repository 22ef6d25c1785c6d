"""Clicks on elements the page may draw again between the find and the click.

The map redraws markers, callouts, result rows and favorites rows when a frame changes their
values (the sample feed drifts every 30 s, and each favorites or search frame re-renders its
list). An element found just before such a redraw is detached by the click, and Selenium raises
StaleElementReferenceException: the element is found again and clicked, a few times at most.
"""

import time

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By


def click_fresh(driver, selector, tries=5):
    """Finds `selector` (CSS) and clicks it, finding it again when a redraw made it stale."""
    for attempt in range(tries):
        try:
            driver.find_element(By.CSS_SELECTOR, selector).click()
            return
        except StaleElementReferenceException:
            if attempt == tries - 1:
                raise
            time.sleep(0.2)
