"""Names of the moltin/ruby-sdk cassette records (commit dc753299ecd840460e86cb2d1f94ebe7d7d08025), in the
order of resources/categories/all.yml and resources/collections/all.yml: the sort checks need them."""

from __future__ import annotations

CATEGORY_NAMES = [
    "Desk & Shelf Clocks",
    "Electrical Cable Ties",
    "Satellite Television Receivers",
    "Mechanical & Wind-Up Alarm Clocks",
    "Analog-to-Digital (DTV) Converters",
    "Portable Photo Printers",
    "Lab Dropping Bottles",
    "Laptop Cooling Pads & External Fans",
    "Boomboxes",
    "Cell Phone VR Headsets",
    "Home Audio Sound Bars",
    "Dome Surveillance Cameras",
    "Surveillance & Security Cameras",
    "Sports & Action Video Cameras",
    "Underwater Photography Cameras",
    "LED & LCD TVs",
    "Outdoor Speakers",
    "Laptop Chargers & Adapters",
    "Traditional Laptop Computers",
    "Blu-Ray Disc Players",
    "Computer Routers",
    "Clock Radios",
    "Computer Monitors",
    "Computer Networking Hubs",
    "Computers & Accessories",
    "Camera & Photo",
    "Home Automation Hubs & Controllers",
    "Electronics",
]
COLLECTION_NAMES = [
    "My Weird Collection",
    "My Awesome Collection",
    "My Other Collection",
    "My Collection",
]
ORDERS_AFTER_CHECKOUT = [
    "5b7ca445-9652-48c4-997e-a5fd42ccf5dc",
    "8772fd89-ab35-446a-bdba-080e34cf2c26",
    "b18c2a35-9965-4613-9cad-179b52009fbb",
]
