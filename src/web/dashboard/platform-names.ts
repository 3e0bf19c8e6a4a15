// Review platforms as their owners write them (Booking.com, not "booking"). The API and the filter's
// values keep the stored codes; a platform the list does not know is shown as stored.
const NAMES: Readonly<Record<string, string>> = {
  google: 'Google', booking: 'Booking.com', tripadvisor: 'Tripadvisor', expedia: 'Expedia', holidaycheck: 'HolidayCheck',
  trustyou: 'TrustYou', airbnb: 'Airbnb', hotels: 'Hotels.com', trivago: 'trivago', facebook: 'Facebook', yelp: 'Yelp',
};

export function platformName(code: string): string {
  return NAMES[code.toLowerCase()] ?? code;
}
